import * as assert from 'node:assert/strict';
import { migrate } from './migrations';

describe('migrate', () => {
    it('passes a current file through untouched', () => {
        const raw = { schema_version: 1, name: 'a' };
        assert.deepEqual(migrate('agent', raw), { value: raw });
    });

    it('renames the unversioned keys of agents and says which', () => {
        const result = migrate('agent', { name: 'a', provider: 'p', request: { model: 'm' } });
        assert.deepEqual(result.value, { schema_version: 1, name: 'a', provider_instance: 'p', body: { model: 'm' } });
        assert.match(result.notice!, /renamed provider → provider_instance, request → body/);
    });

    it('renames the unversioned keys of providers', () => {
        assert.deepEqual(migrate('provider', { name: 'p', api: 'openai', api_key: 'openai' }).value,
            { schema_version: 1, name: 'p', client_api: 'openai', api_key_ref: 'openai' });
    });

    it('rejects a newer version and nonsense versions with what to do', () => {
        assert.deepEqual(migrate('agent', { schema_version: 3 }).error, { message: 'written for schema_version 3, but this QodeAssist reads up to 1', fix: 'update QodeAssist, or rewrite the file for the current schema' });
        assert.match(migrate('agent', { schema_version: '1' }).error!.message, /must be a whole number/);
        assert.match(migrate('agent', { schema_version: 1.5 }).error!.message, /must be a whole number/);
    });
});
