import * as assert from 'node:assert/strict';
import { AcpAgentClient, AcpEvent, AcpPermissionRequest, AcpToolCallState } from '@qodeassist/core';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { RecordingHost, recordEvents, Sandbox } from './acp-test-host';
import { CLAUDE_CODE_PROTOCOLS, COUNT_TOKENS_ANSWER, ModelLog, readThenEditModel, RefusingProxy } from './published-agent-model';

/** The published adapter's entry point: Claude Code (its Agent SDK's cli.js) behind ACP, run with our node. */
const CLAUDE_CODE_ACP = join(dirname(require.resolve('@zed-industries/claude-code-acp/package.json')), 'dist', 'index.js');
/** The key the agent is given for its own provider (the fake one). */
const AGENT_KEY = 'sk-ant-agent-own-key-0123456789';
/** A key of QodeAssist's in the backend's environment, in variables Claude Code would use if they reached it. */
const OUR_KEY = 'sk-ant-qodeassist-own-key-9876543210';
/** Claude Code's own options for an edit, as it offers them. */
const EDIT_OPTIONS = [
    { optionId: 'allow_always', name: 'Always Allow', kind: 'allow_always' },
    { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
    { optionId: 'reject', name: 'Reject', kind: 'reject_once' }
];
const ORIGINAL = 'hello\n';
const UNSAVED = 'hello\n// unsaved line\n';
/** The edit's new text: found nowhere in the workspace after a rejected edit. */
const MARKER = 'hello, world 7f3c9e';

/** Pids of processes whose working folder is `folder` (Linux: /proc), i.e. the agent and anything it started. */
function processesIn(folder: string): number[] {
    if (!existsSync('/proc/self/cwd')) {
        return [];
    }
    return readdirSync('/proc').filter(name => /^\d+$/.test(name)).filter(pid => {
        try {
            return readlinkSync(`/proc/${pid}/cwd`) === folder;
        } catch {
            return false; // gone meanwhile, or not ours to see
        }
    }).map(Number);
}

async function noProcessesIn(folder: string, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (processesIn(folder).length > 0 && Date.now() < deadline) {
        await new Promise(resolve => setTimeout(resolve, 50));
    }
    assert.deepEqual(processesIn(folder), [], 'the agent and all it started are gone');
}

function toolCalls(events: readonly AcpEvent[], kind: string): AcpToolCallState[] {
    return events.flatMap(event => event.type === 'AcpToolCall' && event.call.kind === kind ? [event.call] : []);
}

/**
 * QodeAssist's ACP client against a real, published ACP agent from npm — Claude Code through
 * `@zed-industries/claude-code-acp` — whose model is the fake provider on 127.0.0.1 speaking the
 * Anthropic Messages API. The scripted model reads a file with the agent's ACP Read tool (served
 * by the IDE: the editor's unsaved text) and edits it with its Edit tool (asked through
 * session/request_permission, written through the IDE's writer). The agent runs with a HOME of
 * its own and a proxy that forwards nothing, so it reaches nothing but the fake provider.
 */
describe('a published ACP agent from npm (Claude Code) against the fake provider', function () {
    this.timeout(60_000);
    const server = new FakeProviderServer({ protocols: CLAUDE_CODE_PROTOCOLS, maxLifetimeMs: 300_000 });
    const proxy = new RefusingProxy();
    let proxyUrl: string;
    let sandbox: Sandbox;
    let home: string;
    let client: AcpAgentClient | undefined;

    before(async () => {
        await server.start();
        proxyUrl = await proxy.start();
    });
    after(async () => {
        await server.stop();
        await proxy.stop();
    });
    beforeEach(() => {
        server.reset();
        proxy.destinations.length = 0;
        sandbox = new Sandbox();
        home = join(sandbox.root, 'home');
        mkdirSync(home, { recursive: true });
    });
    afterEach(async () => {
        await client?.close();
        client = undefined;
        await noProcessesIn(sandbox.workspace, 5_000);
        sandbox.dispose();
    });

    async function turn(host: RecordingHost, file: string, log: ModelLog): Promise<{ events: AcpEvent[]; end: AcpEvent }> {
        server.when({ protocol: 'anthropic-count-tokens', scenario: COUNT_TOKENS_ANSWER });
        server.setDefault(readThenEditModel(file, 'hello', MARKER, log));
        client = new AcpAgentClient({
            name: 'claude-code', command: process.execPath, args: [CLAUDE_CODE_ACP],
            env: [
                'ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY', 'CLAUDE_CONFIG_DIR', 'DISABLE_TELEMETRY', 'DISABLE_AUTOUPDATER',
                'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC', 'CLAUDE_CODE_DISABLE_FAST_MODE'
            ]
        }, {
            host,
            // The backend's environment: the agent's own settings and key, and keys of QodeAssist's it does not name.
            env: {
                ...process.env, HOME: home, HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1',
                ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: AGENT_KEY, CLAUDE_CONFIG_DIR: join(home, '.claude'),
                DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
                // Without it Claude Code asks api.anthropic.com whether "fast mode" is on.
                CLAUDE_CODE_DISABLE_FAST_MODE: '1',
                ANTHROPIC_AUTH_TOKEN: OUR_KEY, CLAUDE_CODE_OAUTH_TOKEN: OUR_KEY, OPENAI_API_KEY: OUR_KEY
            },
            secrets: () => [OUR_KEY],
            limits: { initializeSeconds: 30, sessionSeconds: 30, turnIdleSeconds: 30 }
        });
        const info = await client.start();
        assert.equal(info.protocolVersion, 1);
        assert.deepEqual([info.name, info.version], ['@zed-industries/claude-code-acp', '0.16.2']);
        const session = await client.newSession();
        const events = recordEvents(session);
        const end = await session.prompt({ text: 'Fix the greeting in app.txt' }, { requestId: 'r1' });
        return { events, end };
    }

    /** Answers with the option of `kind`, noting what the file and the IDE's writes were at that moment. */
    function answerWith(host: RecordingHost, file: string, kind: string): { atPrompt: Array<{ disk: string; writes: number }> } {
        const seen = { atPrompt: [] as Array<{ disk: string; writes: number }> };
        host.answer = async (request: AcpPermissionRequest) => {
            seen.atPrompt.push({ disk: readFileSync(file, 'utf8'), writes: host.writes.length });
            return { optionId: request.options.find(option => option.kind === kind)!.optionId };
        };
        return seen;
    }

    /** Every request reached a route of the fake provider, carried the agent's key and nothing of QodeAssist's; nothing else was reached. */
    function assertOnlyTheFakeProviderWithTheAgentsKey(): void {
        assert.ok(server.requests.length >= 2);
        for (const request of server.requests) {
            assert.ok(request.protocol, `answered: ${request.method} ${request.path}`);
            assert.equal(request.headers['x-api-key'], AGENT_KEY);
            assert.equal(request.headers.authorization, undefined);
            assert.ok(!JSON.stringify(request.headers).includes(OUR_KEY) && !request.body.includes(OUR_KEY), 'QodeAssist\'s key never reached the agent');
        }
        assert.deepEqual(proxy.destinations, [], 'the agent tried to reach nothing beyond 127.0.0.1');
        assert.ok(existsSync(join(home, '.claude', '.claude.json')), 'the agent kept its state in the HOME it was given');
    }

    it('a whole turn: the file read through the IDE (unsaved text), the edit asked with the agent\'s options and written through the IDE after "allow"', async () => {
        const file = sandbox.write('workspace/app.txt', ORIGINAL);
        const host = new RecordingHost([sandbox.workspace]);
        // The file is open in an editor with a change not saved yet: the agent reads that.
        host.editors.set(file, UNSAVED);
        const seen = answerWith(host, file, 'allow_once');
        const log: ModelLog = { results: [] };
        const { events, end } = await turn(host, file, log);

        assert.equal(end.type, 'Finished', JSON.stringify(end));
        // The read: through fs/read_text_file, so the model got the editor's text.
        assert.ok(log.results[1]?.[0]?.text.includes('// unsaved line'), JSON.stringify(log.results));
        const reads = toolCalls(events, 'read');
        assert.ok(reads.some(call => call.status === 'completed' && call.locations.some(location => location.path === file)));
        // The permission prompt: the edit with its diff and Claude Code's own options, before anything was written.
        assert.equal(host.prompts.length, 1);
        const prompt = host.prompts[0];
        assert.equal(prompt.toolCall.kind, 'edit');
        assert.deepEqual(prompt.options, EDIT_OPTIONS);
        assert.ok(prompt.toolCall.content.some(item => item.type === 'diff' && item.path === file && item.newText.includes(MARKER)));
        assert.deepEqual(seen.atPrompt, [{ disk: ORIGINAL, writes: 0 }]);
        // After "allow": written once through the IDE's writer (the editor's text with the edit), shown as a diff.
        assert.deepEqual(host.writes, [{ path: file, content: `${MARKER}\n// unsaved line\n`, created: false }]);
        assert.equal(readFileSync(file, 'utf8'), `${MARKER}\n// unsaved line\n`);
        const write = events.find(event => event.type === 'AcpFileWrite');
        assert.ok(write?.type === 'AcpFileWrite' && write.edit.absolutePath === file && write.edit.diff.includes(`+${MARKER}`), JSON.stringify(write));
        assert.ok(toolCalls(events, 'edit').some(call => call.status === 'completed'));
        assert.equal(log.results.at(-1)?.[1]?.isError, false);
        assert.match(events.map(event => event.type === 'TextDelta' ? event.text : '').join(''), /The greeting is fixed\./);
        assertOnlyTheFakeProviderWithTheAgentsKey();
    });

    it('after "reject" the file is unchanged: nothing written, the edit failed, its text nowhere in the workspace', async () => {
        const file = sandbox.write('workspace/app.txt', ORIGINAL);
        const host = new RecordingHost([sandbox.workspace]);
        const seen = answerWith(host, file, 'reject_once');
        const log: ModelLog = { results: [] };
        const { events, end } = await turn(host, file, log);

        assert.equal(end.type, 'Finished', JSON.stringify(end));
        // Without an open editor the read returned the disk text.
        assert.ok(log.results[1]?.[0]?.text.includes('hello') && !log.results[1][0].text.includes('unsaved'), JSON.stringify(log.results));
        assert.equal(host.prompts.length, 1);
        assert.deepEqual(host.prompts[0].options, EDIT_OPTIONS);
        assert.deepEqual(seen.atPrompt, [{ disk: ORIGINAL, writes: 0 }]);
        assert.deepEqual(host.writes, []);
        assert.equal(readFileSync(file, 'utf8'), ORIGINAL);
        const edits = toolCalls(events, 'edit');
        assert.equal(edits.at(-1)?.status, 'failed', JSON.stringify(edits.at(-1)));
        assert.ok(!events.some(event => event.type === 'AcpFileWrite'));
        const files = readdirSync(sandbox.workspace, { recursive: true, withFileTypes: true }).filter(entry => entry.isFile());
        assert.ok(files.length > 0);
        for (const entry of files) {
            assert.ok(!readFileSync(join(entry.parentPath, entry.name), 'utf8').includes(MARKER), `${entry.name} holds the rejected edit`);
        }
        assertOnlyTheFakeProviderWithTheAgentsKey();
    });
});
