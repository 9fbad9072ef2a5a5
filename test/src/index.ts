export * from './fake-provider/fake-provider-server';
export * from './fake-provider/protocols';
export * from './fake-provider/scenarios';
export * from './config/config-fixture';
export * from './config/fake-agents';
export * from './fake-provider/recordings';
export * from './fake-provider/fake-provider-suite';
