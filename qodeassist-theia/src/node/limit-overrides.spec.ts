import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { EnvironmentSecretsStore, FileSecretsStore } from '@qodeassist/core';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { QodeAssistConfigServiceImpl } from './config-service-impl';
import { ConnectionLimitOverrides } from './limit-overrides';
import { ConfigurationProvider } from './workspace-configurations';

describe('ConnectionLimitOverrides', () => {
    it('keeps the positive limits it is given, replacing the previous ones, and hands out copies', () => {
        const overrides = new ConnectionLimitOverrides();
        assert.deepEqual(overrides.current(), {});
        overrides.set({ totalSeconds: 900, idleSeconds: 0, connectSeconds: -1, maxToolRounds: 12 });
        assert.deepEqual(overrides.current(), { totalSeconds: 900, maxToolRounds: 12 });
        overrides.set({ idleSeconds: 0.2, totalSeconds: Number.NaN, unknown: 5 } as never);
        assert.deepEqual(overrides.current(), { idleSeconds: 0.2 });
        const copy = overrides.current();
        copy.idleSeconds = 1_000;
        assert.deepEqual(overrides.current(), { idleSeconds: 0.2 });
    });

    it('is what the config service\'s setLimitOverrides stores', async () => {
        const overrides = new ConnectionLimitOverrides();
        const secrets = new FileSecretsStore(join(tmpdir(), 'qodeassist-limits-unused-secrets.json'));
        const service = new QodeAssistConfigServiceImpl(new EnvironmentSecretsStore({}), secrets, {} as ConfigurationProvider, undefined, undefined, undefined, overrides);
        await service.setLimitOverrides({ maxToolRounds: 5 });
        assert.deepEqual(overrides.current(), { maxToolRounds: 5 });
        await new QodeAssistConfigServiceImpl(new EnvironmentSecretsStore({}), secrets, {} as ConfigurationProvider).setLimitOverrides({ maxToolRounds: 5 });
    });
});
