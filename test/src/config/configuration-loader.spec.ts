import * as assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigIssue } from '@qodeassist/core';
import { ConfigFixture } from './config-fixture';

const agentToml = (lines: string) => `schema_version = 1\n${lines}\n`;
const pick = (issue: ConfigIssue) => ({ severity: issue.severity, line: issue.line, field: issue.field, message: issue.message, fix: issue.fix });

describe('configuration loader', () => {
    let fixture: ConfigFixture;
    beforeEach(() => { fixture = new ConfigFixture(); });
    afterEach(() => fixture.dispose());

    interface ErrorCase {
        name: string;
        file: string;
        text: string;
        expected: Array<Record<string, string | number | RegExp | undefined>>;
    }

    const cases: ErrorCase[] = [
        {
            name: 'a TOML syntax error, with the parser\'s line',
            file: 'agents/broken.toml', text: 'schema_version = 1\nname = "broken"\nmodel = = "x"\ncontext_window = 4\n',
            expected: [{ severity: 'error', line: 3, message: 'TOML syntax error: invalid value', fix: 'fix the syntax at that line; every other file still loads' }]
        },
        {
            name: 'an unknown key, with "did you mean"',
            file: 'agents/typo.toml', text: agentToml('name = "typo"\nextends = "claude-chat"\nmodle = "claude-opus-4-1"'),
            expected: [{ line: 4, field: 'modle', message: 'unknown key "modle"', fix: 'did you mean "model"?' }]
        },
        {
            name: 'an unknown key inside [match]',
            file: 'agents/match.toml', text: agentToml('name = "match"\nextends = "claude-chat"\n\n[match]\nfiles = ["*.ts"]'),
            expected: [{ line: 6, field: 'match.files', message: 'unknown key "files"', fix: 'did you mean "file"?' }]
        },
        {
            name: 'a concrete agent missing its endpoint',
            file: 'agents/bare.toml', text: agentToml('name = "bare"\nprovider_instance = "ollama"\nmodel = "m"\ncontext_window = 4096\n\n[body]\nmodel = "m"'),
            expected: [{ field: 'endpoint', message: 'concrete agent is missing "endpoint"', fix: 'set endpoint here or in the profile it extends, or mark the profile abstract = true' }]
        },
        {
            name: 'extends naming an unknown base, with "did you mean"',
            file: 'agents/orphan.toml', text: agentToml('name = "orphan"\nextends = "claude-bas"'),
            expected: [{ line: 3, field: 'extends', message: 'extends unknown agent "claude-bas" (did you mean "claude-base"?)' }]
        },
        {
            name: 'an unknown provider instance',
            file: 'agents/lost.toml', text: agentToml('name = "lost"\nextends = "claude-chat"\nprovider_instance = "antropic"'),
            expected: [{ line: 4, field: 'provider_instance', message: 'unknown provider instance "antropic" (did you mean "anthropic"?)' }]
        },
        {
            name: 'an include of a missing partial',
            file: 'agents/nopartial.toml', text: agentToml('name = "nopartial"\nextends = "claude-chat"\n\n[body]\nmessages = "{% include \'claude/nope.njk\' %}"'),
            expected: [{ line: 6, field: 'body.messages', message: /no partial named "claude\/nope.njk"/ }]
        },
        {
            name: 'an include that climbs out of the partial roots',
            file: 'agents/escape.toml', text: agentToml('name = "escape"\nextends = "claude-chat"\n\n[body]\nmessages = "{% include \'../../../etc/passwd\' %}"'),
            expected: [{ line: 6, field: 'body.messages', message: /leaves the partial roots/ }]
        },
        {
            name: 'a template that renders something other than JSON',
            file: 'agents/notjson.toml', text: agentToml('name = "notjson"\nextends = "claude-chat"\n\n[body]\nmax_tokens = "{{ \'lots\' }}"'),
            expected: [{ line: 6, field: 'body.max_tokens', message: /body.max_tokens: the template rendered text that is not JSON .*: lots/, fix: 'wrap strings with the dump filter ({{ value | dump }}) and check commas between list items' }]
        },
        {
            name: 'a body that is not the protocol\'s request shape',
            file: 'agents/shape.toml', text: agentToml('name = "shape"\nextends = "claude-chat"\n\n[body]\nmax_tokens = 0'),
            expected: [{ line: 6, field: 'body.max_tokens', message: /rendered request is not a valid anthropic-messages request at body.max_tokens/ }]
        },
        {
            name: 'an unknown role in the system prompt',
            file: 'agents/norole.toml', text: agentToml('name = "norole"\nextends = "claude-chat"\nsystem_prompt = "{{ agent_role(\'developr\') }}"'),
            expected: [{ line: 4, field: 'system_prompt', message: 'system_prompt template: unknown role "developr" (did you mean "developer"?)', fix: 'create the role in roles/ or fix the id' }]
        },
        {
            name: 'a schema_version from the future',
            file: 'agents/future.toml', text: 'schema_version = 2\nname = "future"\n',
            expected: [{ line: 1, field: 'schema_version', message: 'written for schema_version 2, but this QodeAssist reads up to 1', fix: 'update QodeAssist, or rewrite the file for the current schema' }]
        },
        {
            name: 'a provider with an unknown client_api',
            file: 'providers/odd.toml', text: 'schema_version = 1\nname = "odd"\nclient_api = "anthropic"\n',
            expected: [{ line: 3, field: 'client_api', message: /Invalid option: expected one of "ollama"/ }]
        },
        {
            name: 'an OpenAI-compatible provider without a URL',
            file: 'providers/proxy.toml', text: 'schema_version = 1\nname = "proxy"\nclient_api = "openai_compatible"\n',
            expected: [{ field: 'url', message: 'client_api "openai_compatible" has no default URL', fix: 'add url = "http://…" with the server\'s base URL' }]
        },
        {
            name: 'a role file that is not valid JSON',
            file: 'roles/bad.json', text: '{"id": "bad",\n "name": }',
            expected: [{ line: 2, message: /JSON syntax error/ }]
        }
    ];

    for (const testCase of cases) {
        it(`reports ${testCase.name}`, () => {
            const path = fixture.user_(testCase.file, testCase.text);
            const issues = fixture.issuesFor(path).map(pick);
            assert.equal(issues.length, testCase.expected.length, JSON.stringify(issues, undefined, 2));
            testCase.expected.forEach((expected, index) => {
                for (const [key, value] of Object.entries(expected)) {
                    const actual = issues[index][key as keyof typeof issues[number]];
                    if (value instanceof RegExp) {
                        assert.match(String(actual), value, `${key} of ${JSON.stringify(issues[index])}`);
                    } else {
                        assert.equal(actual, value, `${key} of ${JSON.stringify(issues[index])}`);
                    }
                }
            });
        });
    }

    it('keeps loading every other profile when one is broken', () => {
        fixture.user_('agents/broken.toml', 'name = [');
        const configuration = fixture.load();
        assert.ok(configuration.agents.has('claude-chat'));
        assert.equal(configuration.agents.size, 43);
        assert.equal(configuration.issues.length, 1);
    });

    it('reports an extends cycle on every profile in it', () => {
        const a = fixture.user_('agents/a.toml', agentToml('name = "a"\nextends = "b"'));
        const b = fixture.user_('agents/b.toml', agentToml('name = "b"\nextends = "a"'));
        assert.deepEqual(fixture.issuesFor(a).map(issue => issue.message), ['extends cycle: a → b → a']);
        assert.deepEqual(fixture.issuesFor(b).map(issue => issue.message), ['extends cycle: b → a → b']);
    });

    it('merges extends deeply, the child winning, arrays replaced', () => {
        fixture.user_('agents/child.toml', agentToml('name = "child"\nextends = "ollama-fim-qwen25coder"\nmodel = "qwen2.5-coder:1.5b"\n\n[body.options]\nnum_predict = 64\nstop = ["\\n\\n"]'));
        const configuration = fixture.load();
        assert.deepEqual(configuration.issues, []);
        const body = configuration.agents.get('child')!.renderBody({ system_prompt: '', history: [], files_metadata: [], tools: [], prefix: 'a', suffix: 'b' });
        assert.deepEqual(body.options, { num_ctx: 16384, num_predict: 64, temperature: 0.2, stop: ['\n\n'] });
        assert.equal(body.model, 'qwen2.5-coder:1.5b');
        assert.equal(body.raw, true);
    });

    it('does not inherit a base\'s description: it says what its own file is', () => {
        fixture.user_('agents/plain.toml', agentToml('name = "plain"\nextends = "claude-chat"'));
        fixture.user_('agents/told.toml', agentToml('name = "told"\nextends = "claude-chat"\ndescription = "Claude for reviews"'));
        const configuration = fixture.load();
        assert.equal(configuration.agents.get('plain')!.description, undefined, 'not "Chat with Claude Sonnet…" of claude-chat');
        assert.equal(configuration.agents.get('told')!.description, 'Claude for reviews');
        assert.match(configuration.agents.get('claude-chat')!.description ?? '', /Chat with Claude/, 'a profile keeps its own');
    });

    it('lets an empty string remove a field the base sets', () => {
        fixture.user_('agents/quiet.toml', agentToml('name = "quiet"\nextends = "claude-chat"\n\n[body]\ntools = ""\nthinking = ""'));
        const configuration = fixture.load();
        const body = configuration.agents.get('quiet')!.renderBody({ system_prompt: 's', history: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], files_metadata: [], tools: [], });
        assert.ok(!('tools' in body) && !('thinking' in body));
    });

    it('migrates an unversioned profile forward with a notice', () => {
        const path = fixture.user_('agents/old.toml', 'name = "old"\nextends = "claude-chat"\nprovider = "anthropic"\nthinking = true\n');
        const configuration = fixture.load();
        const issues = configuration.issues.filter(issue => issue.file === path);
        assert.deepEqual(issues.map(pick), [{
            severity: 'notice', line: undefined, field: 'schema_version', fix: undefined,
            message: 'migrated from schema_version 0 to 1 (renamed provider → provider_instance, thinking → enable_thinking); set schema_version = 1 and the new names in the file to silence this notice'
        }]);
        assert.equal(configuration.agents.get('old')?.enableThinking, true);
    });

    it('shadows by name: project over user over bundled', () => {
        fixture.user_('agents/chat.toml', agentToml('name = "claude-chat"\nextends = "claude-base"\nmodel = "from-user"'));
        assert.equal(fixture.load().agents.get('claude-chat')?.model, 'from-user');
        fixture.project_('agents/chat.toml', agentToml('name = "claude-chat"\nextends = "claude-base"\nmodel = "from-project"'));
        assert.equal(fixture.load().agents.get('claude-chat')?.model, 'from-project');
    });

    it('refuses two profiles of one name in the same layer', () => {
        fixture.user_('agents/one.toml', agentToml('name = "twin"\nextends = "claude-chat"'));
        const second = fixture.user_('agents/two.toml', agentToml('name = "twin"\nextends = "claude-chat"'));
        assert.deepEqual(fixture.issuesFor(second).map(issue => issue.message), [`agent "twin" is also defined in ${join(fixture.user, 'agents', 'one.toml')}`]);
    });

    it('applies agent_models.json, including the model inside a Gemini URL', () => {
        fixture.user_('agent_models.json', JSON.stringify({ 'gemini-chat': 'gemini-2.5-pro', 'claude-chat': 'claude-opus-4-1' }));
        const configuration = fixture.load();
        assert.equal(configuration.agents.get('gemini-chat')?.url, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse');
        assert.equal(configuration.agents.get('claude-chat')?.renderBody({ system_prompt: '', history: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }], files_metadata: [], tools: [] }).model, 'claude-opus-4-1');
    });

    it('drops unknown and abstract agents from a roster with an error each', () => {
        const path = fixture.user_('agents/rosters.toml', 'schema_version = 1\n[chat]\nagents = ["claude-chat", "claude-base", "claud-chat"]\n');
        const configuration = fixture.load();
        assert.deepEqual(configuration.rosters.chat, ['claude-chat']);
        assert.deepEqual(fixture.issuesFor(path).map(issue => issue.message), [
            'chat roster: "claude-base" is abstract and cannot run',
            'chat roster: unknown agent "claud-chat" (did you mean "claude-chat"?)'
        ]);
        assert.ok(configuration.rosters.completion.length > 0, 'pipelines the user did not list keep the bundled roster');
    });

    it('refuses a partial that is a symlink out of its root', () => {
        fixture.user_('partials/inside.njk', '[]');
        symlinkSync('/etc/hostname', join(fixture.user, 'partials', 'evil.njk'));
        const path = fixture.user_('agents/linked.toml', agentToml('name = "linked"\nextends = "claude-chat"\n\n[body]\nmessages = "{% include \'evil.njk\' %}"'));
        assert.match(fixture.issuesFor(path)[0].message, /a link that leads outside its root/);
    });

    it('reports a syntax error in a user partial against the partial file and line', () => {
        const partial = fixture.user_('partials/mine.njk', '[\n{% for x in %}\n]');
        const issues = fixture.issuesFor(partial);
        assert.equal(issues.length, 1);
        assert.equal(issues[0].line, 2);
        assert.match(issues[0].message, /partial "mine.njk"/);
    });
});
