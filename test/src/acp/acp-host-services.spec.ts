import * as assert from 'node:assert/strict';
import { AcpAgentClient, AcpPermissionAnswer, SandboxSettings } from '@qodeassist/core';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { AgentScript, Step } from './scripted-acp-agent';
import { echoed, eventually, messageText, recordEvents, RecordingHost, Sandbox, scriptedAgent } from './acp-test-host';
import { processAlive } from '@qodeassist/core';

/** A killed orphan lingers as a zombie until init reaps it: wait for that (at most 5 s) before judging. */
async function goneSoon(pid: number): Promise<boolean> {
    const gone = () => !processAlive(pid);
    for (let attempt = 0; attempt < 100 && !gone(); attempt++) {
        await new Promise(resolve => setTimeout(resolve, 50));
    }
    return gone();
}

const ALLOW_REJECT = [
    { optionId: 'yes', name: 'Allow once', kind: 'allow_once' },
    { optionId: 'always', name: 'Always allow edits', kind: 'allow_always' },
    { optionId: 'no', name: 'Reject', kind: 'reject_once' }
];

describe('AcpAgentClient serving the agent: files, permissions, terminals, cancel', function () {
    this.timeout(30_000);
    let sandbox: Sandbox;
    let client: AcpAgentClient | undefined;

    beforeEach(() => { sandbox = new Sandbox(); });
    afterEach(async () => {
        await client?.close();
        client = undefined;
        sandbox.dispose();
    });

    const run = async (script: AgentScript, options: { host?: RecordingHost; env?: Record<string, string | undefined>; limits?: Record<string, number>; signal?: AbortSignal; sandbox?: SandboxSettings } = {}) => {
        const host = options.host ?? new RecordingHost([sandbox.workspace]);
        client = new AcpAgentClient(scriptedAgent({ log: sandbox.log, ...script }), { host, env: options.env, limits: options.limits, sandbox: options.sandbox });
        const session = await client.newSession();
        const events = recordEvents(session);
        return { host, session, events, end: session.prompt({ text: 'go' }, { requestId: 'r1', signal: options.signal }) };
    };
    const received = () => readFileSync(sandbox.log, 'utf8').trim().split('\n').map(line => JSON.parse(line) as { method?: string; params?: Record<string, unknown>; result?: unknown });

    it('reads inside the workspace (unsaved editor text first) and refuses a path outside it and a link leading out, without reading the marker', async () => {
        const inside = sandbox.write('workspace/src/inside.txt', 'inside on disk\n');
        const edited = sandbox.write('workspace/src/edited.txt', 'saved text\n');
        const marker = sandbox.write('outside/secret.txt', 'MARKER-OUTSIDE-CONTENT\n');
        symlinkSync(marker, join(sandbox.workspace, 'link-out.txt'));
        const host = new RecordingHost([sandbox.workspace]);
        host.editors.set(edited, 'unsaved editor text\n');
        const { events, end } = await run({
            turns: [[
                { request: 'fs/read_text_file', params: { path: inside }, save: 'inside', echo: true },
                { request: 'fs/read_text_file', params: { path: edited }, save: 'edited', echo: true },
                { request: 'fs/read_text_file', params: { path: marker }, save: 'outside', echo: true },
                { request: 'fs/read_text_file', params: { path: join(sandbox.workspace, 'link-out.txt') }, save: 'link', echo: true },
                { request: 'fs/read_text_file', params: { path: join(sandbox.workspace, 'missing.txt') }, save: 'missing', echo: true }
            ]]
        }, { host });
        assert.equal((await end).type, 'Finished');
        assert.deepEqual(echoed(events, 'inside'), { content: 'inside on disk\n' });
        assert.deepEqual(echoed(events, 'edited'), { content: 'unsaved editor text\n' });
        const outside = echoed(events, 'outside') as { error: { code: number; message: string } };
        assert.equal(outside.error.code, -32602);
        assert.match(outside.error.message, /outside the workspace/);
        const link = echoed(events, 'link') as { error: { message: string } };
        assert.match(link.error.message, /symbolic link to a place outside the workspace/);
        assert.equal((echoed(events, 'missing') as { error: { code: number } }).error.code, -32002);
        assert.ok(!JSON.stringify(events).includes('MARKER-OUTSIDE-CONTENT'), 'the marker content never reached the agent');
        assert.ok(!readFileSync(sandbox.log, 'utf8').includes('MARKER-OUTSIDE-CONTENT'));
    });

    it('asks permission with the agent\'s own options and writes through the editor after "allow", with the diff shown', async () => {
        const target = sandbox.write('workspace/src/a.ts', 'let a = 1;\n');
        const { host, events, end } = await run({
            turns: [[{
                permission: { toolCall: { toolCallId: 'edit-1', title: 'Edit src/a.ts', kind: 'edit', locations: [{ path: target }] }, options: ALLOW_REJECT },
                allowed: [{ request: 'fs/write_text_file', params: { path: target, content: 'let a = 2;\n' }, save: 'write', echo: true }],
                rejected: [{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'not allowed\n' } } }]
            }]]
        });
        assert.equal((await end).type, 'Finished');
        assert.equal(host.prompts.length, 1);
        assert.deepEqual(host.prompts[0].options, ALLOW_REJECT, 'the agent\'s own options, names and kinds');
        assert.equal(host.prompts[0].toolCall.title, 'Edit src/a.ts');
        assert.equal(host.prompts[0].toolCall.kind, 'edit');
        assert.equal(host.prompts[0].agent, 'scripted');
        assert.deepEqual(echoed(events, 'write'), {});
        assert.deepEqual(host.writes, [{ path: target, content: 'let a = 2;\n', created: false }], 'written through the editor port');
        assert.equal(readFileSync(target, 'utf8'), 'let a = 2;\n');
        const written = events.find(event => event.type === 'AcpFileWrite');
        assert.ok(written && written.type === 'AcpFileWrite');
        assert.equal(written.edit.path, 'src/a.ts');
        assert.match(written.edit.diff, /-let a = 1;\n\+let a = 2;/);
        const answer = received().find(message => (message.result as { outcome?: unknown } | undefined)?.outcome !== undefined)!;
        assert.deepEqual(answer.result, { outcome: { outcome: 'selected', optionId: 'yes' } });
    });

    it('leaves the file unchanged when the user rejects, also when the agent writes without waiting for the answer', async () => {
        const target = sandbox.write('workspace/src/a.ts', 'let a = 1;\n');
        const host = new RecordingHost([sandbox.workspace]);
        host.answer = async () => {
            await new Promise(resolve => setTimeout(resolve, 300));
            return { optionId: 'no' };
        };
        const steps: Step[] = [
            { request: 'session/request_permission', params: { toolCall: { toolCallId: 'e1', title: 'Edit src/a.ts', kind: 'edit' }, options: ALLOW_REJECT }, wait: false, save: 'asked' },
            // A misbehaving agent: it writes while the prompt is still open.
            { request: 'fs/write_text_file', params: { path: target, content: 'HACKED\n' }, save: 'write', echo: true },
            { await: 'asked' }
        ];
        const { events, end } = await run({ turns: [steps] }, { host });
        assert.equal((await end).type, 'Finished');
        const write = echoed(events, 'write') as { error: { message: string } };
        assert.match(write.error.message, /did not allow "Edit src\/a\.ts".*nothing was written/);
        assert.deepEqual(echoed(events, 'asked'), { outcome: { outcome: 'selected', optionId: 'no' } });
        assert.equal(readFileSync(target, 'utf8'), 'let a = 1;\n');
        assert.deepEqual(host.writes, []);
    });

    it('asks before every write to a configuration path, even one the agent did not ask about, and writes nothing when refused', async () => {
        const settings = join(sandbox.workspace, '.vscode', 'settings.json');
        const host = new RecordingHost([sandbox.workspace]);
        host.answer = async request => ({ optionId: request.protectedPath ? 'reject' : request.options[0].optionId });
        const { events, end } = await run({ turns: [[{ request: 'fs/write_text_file', params: { path: settings, content: '{"evil": true}' }, save: 'write', echo: true }]] }, { host });
        assert.equal((await end).type, 'Finished');
        assert.equal(host.prompts.length, 1);
        assert.equal(host.prompts[0].protectedPath, '.vscode/settings.json');
        assert.deepEqual(host.prompts[0].options.map(option => option.kind), ['allow_once', 'reject_once']);
        const diff = host.prompts[0].toolCall.content[0];
        assert.ok(diff.type === 'diff' && diff.newText === '{"evil": true}', 'the prompt shows what would be written');
        assert.match((echoed(events, 'write') as { error: { message: string } }).error.message, /did not allow writing "\.vscode\/settings\.json"/);
        assert.equal(existsSync(settings), false);
    });

    it('runs terminal commands with a scrubbed environment, through a shell for a lone command line, and keeps the output tail', async () => {
        const env = { ...process.env, QA_TEST_API_KEY: 'sk-qodeassist-marker-4242424242', QA_PLAIN: 'visible' };
        const program = 'console.log(JSON.stringify(process.env))';
        const { events, end } = await run({
            turns: [[
                { request: 'terminal/create', params: { command: process.execPath, args: ['-e', program], env: [{ name: 'AGENT_VAR', value: 'from-agent' }, { name: 'AGENT_TOKEN', value: 'sk-agent-secret-999999999' }] }, save: 'env' },
                { request: 'terminal/wait_for_exit', params: { terminalId: '${env.terminalId}' }, save: 'envExit', echo: true },
                { request: 'terminal/output', params: { terminalId: '${env.terminalId}' }, save: 'envOut', echo: true },
                { request: 'terminal/release', params: { terminalId: '${env.terminalId}' } },
                { request: 'terminal/create', params: { command: 'echo first && echo second', outputByteLimit: 7 }, save: 'shell' },
                { request: 'terminal/wait_for_exit', params: { terminalId: '${shell.terminalId}' } },
                { request: 'terminal/output', params: { terminalId: '${shell.terminalId}' }, save: 'shellOut', echo: true },
                { request: 'terminal/output', params: { terminalId: '${env.terminalId}' }, save: 'released', echo: true }
            ]]
        }, { env });
        assert.equal((await end).type, 'Finished', messageText(events));
        assert.deepEqual(echoed(events, 'envExit'), { exitCode: 0, signal: null });
        const output = echoed(events, 'envOut') as { output: string; truncated: boolean; exitStatus: unknown };
        const childEnv = JSON.parse(output.output) as Record<string, string>;
        assert.equal(childEnv.QA_TEST_API_KEY, undefined, 'the key in the parent environment is not in the child\'s');
        assert.ok(!output.output.includes('sk-qodeassist-marker-4242424242'));
        assert.equal(childEnv.AGENT_TOKEN, undefined, 'a key-named variable from the agent is dropped too');
        assert.equal(childEnv.AGENT_VAR, 'from-agent');
        assert.equal(childEnv.QA_PLAIN, undefined, 'only the allow-list passes');
        assert.ok(childEnv.PATH, 'PATH passes (trusted entries)');
        assert.deepEqual(output.exitStatus, { exitCode: 0, signal: null });
        assert.deepEqual(echoed(events, 'shellOut'), { output: 'second\n', truncated: true, exitStatus: { exitCode: 0, signal: null } }, 'the tail within outputByteLimit');
        assert.equal((echoed(events, 'released') as { error: { code: number } }).error.code, -32002, 'a released terminal is gone');
    });

    it('shows a running terminal\'s output and kills its whole process tree', async () => {
        const pids = join(sandbox.root, 'pids.json');
        const program = `const {spawn}=require('child_process');const c=spawn(process.execPath,['-e','setInterval(()=>{},1000)'],{stdio:'ignore'});`
            + `require('fs').writeFileSync(${JSON.stringify(pids)},JSON.stringify([process.pid,c.pid]));console.log('started');setInterval(()=>{},1000);`;
        const { events, end } = await run({
            turns: [[
                { request: 'terminal/create', params: { command: process.execPath, args: ['-e', program] }, save: 't' },
                { sleep: 700 },
                { request: 'terminal/output', params: { terminalId: '${t.terminalId}' }, save: 'live', echo: true },
                { request: 'terminal/kill', params: { terminalId: '${t.terminalId}' } },
                { request: 'terminal/wait_for_exit', params: { terminalId: '${t.terminalId}' }, save: 'exit', echo: true },
                { request: 'terminal/release', params: { terminalId: '${t.terminalId}' } }
            ]]
            // Host pids written outside the workspace: this pins the containment without a sandbox (acp-terminals.attack.spec.ts attacks bubblewrap's).
        }, { sandbox: { mode: 'off' } });
        assert.equal((await end).type, 'Finished', messageText(events));
        assert.deepEqual(echoed(events, 'live'), { output: 'started\n', truncated: false }, 'output while it runs, no exit status yet');
        assert.deepEqual(echoed(events, 'exit'), { exitCode: null, signal: 'SIGKILL' });
        const [parent, child] = JSON.parse(readFileSync(pids, 'utf8')) as number[];
        for (const pid of [parent, child]) {
            assert.equal(await goneSoon(pid), true, `process ${pid} is gone`);
        }
    });

    it('cancels mid-tool-call: session/cancel is sent, the open permission prompt closes as cancelled, the turn ends Cancelled', async () => {
        const host = new RecordingHost([sandbox.workspace]);
        let promptSignal: AbortSignal | undefined;
        host.answer = (_request, signal) => {
            promptSignal = signal;
            return new Promise<AcpPermissionAnswer>(() => undefined);
        };
        const stop = new AbortController();
        const { events, end } = await run({
            turns: [[
                { update: { sessionUpdate: 'tool_call', toolCallId: 'run-1', title: 'Run tests', kind: 'execute', status: 'in_progress' } },
                { permission: { toolCall: { toolCallId: 'run-1' }, options: ALLOW_REJECT }, save: 'permission', allowed: [{ stall: true }], rejected: [{ stall: true }] }
            ]]
        }, { host, signal: stop.signal });
        await eventually(events, event => event.type === 'AcpToolCall');
        while (host.prompts.length === 0) {
            await new Promise(resolve => setTimeout(resolve, 20));
        }
        assert.equal(host.prompts[0].toolCall.title, 'Run tests', 'the prompt shows the call the agent announced');
        stop.abort();
        const ended = await end;
        assert.deepEqual(ended, { type: 'Cancelled', requestId: 'r1' });
        assert.equal(promptSignal?.aborted, true, 'the host\'s prompt was told to close');
        const log = received();
        assert.ok(log.some(message => message.method === 'session/cancel' && message.params!.sessionId === 'sess-1'), 'session/cancel sent');
        assert.ok(log.some(message => JSON.stringify(message.result) === '{"outcome":{"outcome":"cancelled"}}'), 'the permission request was answered cancelled');
        assert.equal(events.filter(event => event.type === 'Cancelled' || event.type === 'Finished' || event.type === 'Failed').length, 1);
    });

    it('ends a cancelled turn after the grace period when the agent ignores session/cancel', async () => {
        const stop = new AbortController();
        const started = Date.now();
        const { end } = await run({ ignoreCancel: true, turns: [[{ stall: true }]] }, { signal: stop.signal, limits: { cancelGraceSeconds: 0.3 } });
        setTimeout(() => stop.abort(), 100);
        assert.deepEqual(await end, { type: 'Cancelled', requestId: 'r1' });
        assert.ok(Date.now() - started < 5_000);
    });
});

