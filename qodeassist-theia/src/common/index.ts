export * from './chat-protocol';
