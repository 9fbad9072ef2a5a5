import * as assert from 'node:assert/strict';
import { EnvironmentSecretsStore, environmentVariableFor } from './secrets-store';

describe('EnvironmentSecretsStore', () => {
    it('maps a key reference to <REF>_API_KEY', () => {
        assert.equal(environmentVariableFor('openai'), 'OPENAI_API_KEY');
        assert.equal(environmentVariableFor('my-proxy.eu'), 'MY_PROXY_EU_API_KEY');
    });

    it('reads the trimmed value and treats blank as missing', async () => {
        const store = new EnvironmentSecretsStore({ OPENAI_API_KEY: '  sk-1  ', BLANK_API_KEY: ' ' });
        assert.equal(await store.get('openai'), 'sk-1');
        assert.equal(await store.get('blank'), undefined);
        assert.equal(await store.get('absent'), undefined);
    });
});
