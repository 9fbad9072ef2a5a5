import * as assert from 'node:assert/strict';
import { parse as parseToml } from 'smol-toml';
import { QodeAssistError } from '../wire/error-info';
import { providerFileText, withRoster } from './config-edits';

/** Plain objects (smol-toml makes null-prototype ones). */
const parse = (text: string): Record<string, unknown> => JSON.parse(JSON.stringify(parseToml(text)));

describe('configuration edits', () => {
    it('writes a provider file the loader accepts, and refuses a bad one naming the field', () => {
        const text = providerFileText({ name: 'my-proxy', client_api: 'openai_compatible', url: 'http://127.0.0.1:8000/v1', api_key_ref: 'my-proxy' });
        assert.deepEqual(parse(text), { schema_version: 1, name: 'my-proxy', client_api: 'openai_compatible', url: 'http://127.0.0.1:8000/v1', api_key_ref: 'my-proxy' });
        assert.deepEqual(parse(providerFileText({ name: 'local', client_api: 'ollama', url: ' ' })), { schema_version: 1, name: 'local', client_api: 'ollama' });
        assert.throws(() => providerFileText({ name: 'bad name', client_api: 'ollama' }), (error: QodeAssistError) => /name — use letters/.test(error.message));
        assert.throws(() => providerFileText({ name: 'x', client_api: 'nope' }), /client_api/);
        assert.throws(() => providerFileText({ name: 'x', client_api: 'ollama', url: 'not a url' }), /url/);
    });

    const file = [
        'schema_version = 1',
        '# local first',
        '[chat]',
        'agents = [',
        '  "ollama-chat",',
        '  "claude-chat",',
        ']',
        '',
        '[refactor] # tools too',
        'agents = ["ollama-refactor"]',
        ''
    ].join('\n');
    const cases: Array<{ name: string; text: string; pipeline: 'chat' | 'refactor' | 'completion'; agents: string[]; expected: Record<string, unknown>; keeps?: RegExp }> = [
        { name: 'a multi-line array', text: file, pipeline: 'chat', agents: ['claude-chat', 'ollama-chat'], expected: { chat: { agents: ['claude-chat', 'ollama-chat'] }, refactor: { agents: ['ollama-refactor'] } }, keeps: /# local first/ },
        { name: 'a section with a trailing comment', text: file, pipeline: 'refactor', agents: [], expected: { chat: { agents: ['ollama-chat', 'claude-chat'] }, refactor: { agents: [] } }, keeps: /\[refactor\] # tools too/ },
        { name: 'a missing section is added', text: file, pipeline: 'completion', agents: ['a', 'b'], expected: { chat: { agents: ['ollama-chat', 'claude-chat'] }, refactor: { agents: ['ollama-refactor'] }, completion: { agents: ['a', 'b'] } } },
        { name: 'an empty file', text: '', pipeline: 'chat', agents: ['x'], expected: { chat: { agents: ['x'] } } }
    ];
    for (const entry of cases) {
        it(`replaces a roster: ${entry.name}`, () => {
            const edited = withRoster(entry.text, entry.pipeline, entry.agents);
            const { schema_version: version, ...rest } = parse(edited) as Record<string, unknown>;
            assert.equal(version, 1);
            assert.deepEqual(rest, entry.expected);
            if (entry.keeps) {
                assert.match(edited, entry.keeps);
            }
        });
    }
});
