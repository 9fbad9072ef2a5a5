import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { SecretsStore } from '@qodeassist/core';
import qodeAssistBackendModule from '@qodeassist/theia/lib/node/qodeassist-backend-module';
import { QodeAssistSecretsStore, QodeAssistUserHome } from '@qodeassist/theia/lib/node/backend-symbols';
import { Container } from '@theia/core/shared/inversify';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import productBackendModule from './product-backend-module';

describe('The example product: QodeAssist embedded with one service rebound', () => {
    const saved = { vault: process.env.QODEASSIST_PRODUCT_VAULT, openai: process.env.OPENAI_API_KEY, anthropic: process.env.ANTHROPIC_API_KEY };
    let home: string;

    /** The backend container as Theia loads it: QodeAssist's module first, then the product's. */
    const secrets = (): SecretsStore => {
        const container = new Container();
        container.load(qodeAssistBackendModule, productBackendModule);
        container.rebind(QodeAssistUserHome).toConstantValue(home);
        return container.get<SecretsStore>(QodeAssistSecretsStore);
    };

    beforeEach(() => {
        home = mkdtempSync(join(tmpdir(), 'qodeassist-product-'));
        delete process.env.OPENAI_API_KEY;
        process.env.ANTHROPIC_API_KEY = 'sk-ant-from-env-0123';
    });
    afterEach(() => {
        rmSync(home, { recursive: true, force: true });
        for (const [variable, value] of [['QODEASSIST_PRODUCT_VAULT', saved.vault], ['OPENAI_API_KEY', saved.openai], ['ANTHROPIC_API_KEY', saved.anthropic]] as const) {
            if (value === undefined) {
                delete process.env[variable];
            } else {
                process.env[variable] = value;
            }
        }
    });

    it('reads keys from the product\'s vault first, then QodeAssist\'s own chain', async () => {
        const vault = join(home, 'vault.json');
        writeFileSync(vault, JSON.stringify({ openai: 'sk-openai-from-vault-0123' }));
        process.env.QODEASSIST_PRODUCT_VAULT = vault;
        const store = secrets();
        assert.equal(await store.get('openai'), 'sk-openai-from-vault-0123');
        assert.equal(await store.get('anthropic'), 'sk-ant-from-env-0123', 'not in the vault: the environment, as QodeAssist reads it');
        writeFileSync(vault, JSON.stringify({ openai: 'sk-openai-rotated-4567' }));
        assert.equal(await store.get('openai'), 'sk-openai-rotated-4567', 'a rotated key is used at once');
    });

    it('without a vault the product behaves as QodeAssist does', async () => {
        delete process.env.QODEASSIST_PRODUCT_VAULT;
        const store = secrets();
        assert.equal(await store.get('openai'), undefined);
        assert.equal(await store.get('anthropic'), 'sk-ant-from-env-0123');
    });
});
