import * as assert from 'node:assert/strict';
import { AcpAgentClient, AcpAgentError, AcpLimits, RequestFailed } from '@qodeassist/core';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentScript } from './scripted-acp-agent';
import { recordEvents, RecordingHost, Sandbox, scriptedAgent } from './acp-test-host';
import { processAlive } from '@qodeassist/core';

/** A killed orphan lingers as a zombie until init reaps it: wait for that (at most 5 s) before judging. */
async function goneSoon(pid: number): Promise<boolean> {
    const gone = () => !processAlive(pid);
    for (let attempt = 0; attempt < 100 && !gone(); attempt++) {
        await new Promise(resolve => setTimeout(resolve, 50));
    }
    return gone();
}

describe('AcpAgentClient when the agent fails: typed errors naming the agent, with its stderr tail', function () {
    this.timeout(30_000);
    let sandbox: Sandbox;
    let client: AcpAgentClient | undefined;

    beforeEach(() => { sandbox = new Sandbox(); });
    afterEach(async () => {
        await client?.close();
        client = undefined;
        sandbox.dispose();
    });

    const turn = async (script: AgentScript, limits: Partial<AcpLimits> = {}) => {
        client = new AcpAgentClient(scriptedAgent(script, 'flaky-agent'), { host: new RecordingHost([sandbox.workspace]), limits });
        const session = await client.newSession();
        const events = recordEvents(session);
        const end = await session.prompt({ text: 'go' }, { requestId: 'r1' });
        return { end, events, session };
    };
    const failure = (end: { type: string }) => {
        assert.equal(end.type, 'Failed', JSON.stringify(end));
        return (end as RequestFailed).error;
    };
    /** Whether the agent's process (and so its group) is gone. */
    const agentGone = async () => {
        const pid = (client as unknown as { process?: { child: { pid?: number } } }).process?.child.pid;
        assert.ok(pid, 'the agent had started');
        for (let attempt = 0; attempt < 100; attempt++) {
            try {
                process.kill(pid, 0);
            } catch {
                return true;
            }
            await new Promise(resolve => setTimeout(resolve, 50));
        }
        return false;
    };

    it('a crash mid-turn fails the turn with a Provider error naming the agent, its exit code and the fix, with the stderr tail', async () => {
        const { end, events } = await turn({
            startupStderr: 'agent starting\n',
            turns: [[
                { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'working' } } },
                { crash: 3, stderr: 'fatal: ANTHROPIC_API_KEY sk-ant-api03-abcdefghijklmnopqrstuvwxyz is invalid\n' }
            ]]
        });
        const error = failure(end);
        assert.equal(error.category, 'Provider');
        assert.match(error.message, /ACP agent "flaky-agent" exited with code 3 during a prompt turn/);
        assert.match(error.message, /Run ".*scripted-acp-agent\.js.*" in a terminal/);
        assert.match(error.providerDetail ?? '', /agent starting\nfatal: ANTHROPIC_API_KEY sk-ant-api03-\[REDACTED\] is invalid/);
        assert.ok(!JSON.stringify(events).includes('abcdefghijklmnopqrstuvwxyz'), 'the key in the stderr tail is redacted');
        assert.equal(client!.state, 'failed');
        await assert.rejects(client!.newSession(), (later: AcpAgentError) => later.agent === 'flaky-agent' && /exited with code 3/.test(later.message));
    });

    it('a crash before initialize is answered rejects start() with the stderr tail, and the tail is bounded', async () => {
        client = new AcpAgentClient(scriptedAgent({ startupStderr: 'x'.repeat(20_000) + 'cannot find config\n', crashOnInitialize: 2, turns: [] }, 'flaky-agent'),
            { host: new RecordingHost([sandbox.workspace]), limits: { stderrTailBytes: 1024 } });
        await assert.rejects(client.start(), (error: AcpAgentError) => {
            assert.ok(error instanceof AcpAgentError);
            assert.equal(error.agent, 'flaky-agent');
            assert.match(error.message, /exited with code 2 while starting/);
            assert.ok(error.info.providerDetail!.endsWith('cannot find config'));
            assert.ok(error.info.providerDetail!.length <= 1024, `tail of ${error.info.providerDetail!.length} characters`);
            return true;
        });
        assert.equal(client.state, 'failed');
    });

    it('a line that is not JSON-RPC fails the turn, names the agent and the fix, and stops the agent', async () => {
        const { end } = await turn({ turns: [[{ raw: 'Welcome to the agent! (interactive mode)' }, { stall: true }]] });
        const error = failure(end);
        assert.equal(error.category, 'Provider');
        assert.match(error.message, /ACP agent "flaky-agent" sent a message that is not ACP JSON-RPC \("Welcome to the agent! \(interactive mode\)"\)/);
        assert.match(error.message, /starts it in ACP mode/);
        assert.equal(client!.state, 'failed');
        assert.equal(await agentGone(), true);
    });

    it('a message over maxMessageBytes fails the turn without buffering it', async () => {
        const { end } = await turn({ turns: [[{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'y'.repeat(50_000) } } }, { stall: true }]] }, { maxMessageBytes: 10_000 });
        assert.match(failure(end).message, /sent a message longer than 10000 bytes \(the maxMessageBytes limit\)/);
        assert.equal(await agentGone(), true);
    });

    it('more updates than maxUpdatesPerTurn stop the turn (session/cancel sent) and drop the rest', async () => {
        const { end, events } = await turn({ turns: [[{ flood: 200 }, { stall: true }]] }, { maxUpdatesPerTurn: 50 });
        assert.match(failure(end).message, /more than 50 session updates in one turn \(the maxUpdatesPerTurn limit\)/);
        assert.equal(events.filter(event => event.type === 'TextDelta' && event.requestId === 'r1').length, 50);
    });

    it('an agent that goes silent while QodeAssist waits fails the turn after turnIdleSeconds', async () => {
        const started = Date.now();
        const { end } = await turn({ ignoreCancel: true, turns: [[{ stall: true }]] }, { turnIdleSeconds: 0.5 });
        const error = failure(end);
        assert.equal(error.category, 'Network');
        assert.match(error.message, /ACP agent "flaky-agent" sent nothing for 0.5 s.*raise turnIdleSeconds/);
        assert.ok(Date.now() - started < 10_000);
    });

    it('the agent\'s error answer to a prompt is a typed error: auth_required is Auth', async () => {
        const { end } = await turn({ turns: [[{ fail: { code: -32000, message: 'Authentication required' } }]] });
        const error = failure(end);
        assert.equal(error.category, 'Auth');
        assert.match(error.message, /ACP agent "flaky-agent" needs you to sign in before session\/prompt/);
    });

    it('the reason an agent puts in the error\'s data reaches the chat, without terminal codes and with keys redacted (codex-acp\'s data.message)', async () => {
        const { end } = await turn({
            turns: [[{
                fail: {
                    code: -32603, message: 'Internal error',
                    data: { message: '\u001b[31munexpected status 401 Unauthorized:\u001b[0m key sk-proj-abcdefghijklmnopqrstuvwxyz0123 rejected' }
                }
            }]]
        });
        const error = failure(end);
        assert.equal(error.category, 'Provider');
        assert.match(error.message, /answered session\/prompt with an error \(-32603\): Internal error: unexpected status 401 Unauthorized: key sk-proj-\[REDACTED\] rejected\./);
        assert.ok(!error.message.includes('\u001b'), 'no terminal codes');
        assert.ok(!error.message.includes('abcdefghijklmnopqrstuvwxyz0123'), 'the key is redacted');
    });

    it('a failed load\'s reason in data.details (Gemini CLI) and a plain string in data reach the error; the stderr tail stays as detail without colour codes', async () => {
        client = new AcpAgentClient(scriptedAgent({
            startupStderr: '\u001b[33mwarning:\u001b[0m no cached credentials\n',
            load: [{ fail: { code: -32603, message: 'Internal error', data: { details: 'Session file ~/.gemini/tmp/abc.json is corrupt' } } }],
            turns: [[{ fail: { code: -32603, message: 'Request failed', data: 'quota exceeded for model gemini-2.5-pro' } }]]
        }, 'flaky-agent'), { host: new RecordingHost([sandbox.workspace]) });
        await assert.rejects(client.loadSession('sess-1'), (error: AcpAgentError) => {
            assert.match(error.message, /answered session\/load with an error \(-32603\): Internal error: Session file ~\/\.gemini\/tmp\/abc\.json is corrupt\./);
            assert.equal(error.info.providerDetail, 'warning: no cached credentials');
            return true;
        });
        const session = await client.newSession();
        const end = await session.prompt({ text: 'go' }, { requestId: 'r1' });
        assert.match(failure(end).message, /Request failed: quota exceeded for model gemini-2\.5-pro\./);
    });

    it('a command that is missing, or a program inside the workspace, is a Config error and nothing starts', async () => {
        client = new AcpAgentClient({ name: 'ghost', command: 'qodeassist-no-such-agent-xyz' }, { host: new RecordingHost([sandbox.workspace]) });
        await assert.rejects(client.start(), (error: AcpAgentError) => error.info.category === 'Config' && /ACP agent "ghost" was not started: "qodeassist-no-such-agent-xyz" was not found/.test(error.message));
        const planted = join(sandbox.workspace, 'agent.sh');
        const marker = join(sandbox.root, 'planted-ran');
        writeFileSync(planted, `#!/bin/sh\ntouch "${marker}"\n`);
        chmodSync(planted, 0o755);
        const second = new AcpAgentClient({ name: 'planted', command: planted }, { host: new RecordingHost([sandbox.workspace]) });
        await assert.rejects(second.start(), (error: AcpAgentError) => error.info.category === 'Config' && /inside the workspace/.test(error.message));
        await new Promise(resolve => setTimeout(resolve, 200));
        assert.equal(existsSync(marker), false, 'the planted program never ran');
    });

    it('an agent speaking another protocol version is refused with a Config error', async () => {
        client = new AcpAgentClient(scriptedAgent({ initialize: { protocolVersion: 99 }, turns: [] }, 'future-agent'), { host: new RecordingHost([sandbox.workspace]) });
        await assert.rejects(client.start(), (error: AcpAgentError) => error.info.category === 'Config' && /speaks ACP protocol version 99, but QodeAssist speaks version 1/.test(error.message));
        assert.equal(await agentGone(), true);
    });

    it('closing the client ends the agent\'s whole process tree, and so does its crash', async () => {
        const pids = join(sandbox.root, 'agent-pids.json');
        const { end } = await turn({ turns: [[{ spawnChild: pids }]] });
        assert.equal(end.type, 'Finished');
        const [agent, child] = JSON.parse(readFileSync(pids, 'utf8')) as number[];
        await client!.close();
        assert.deepEqual([await goneSoon(agent), await goneSoon(child)], [true, true]);

        const crashed = join(sandbox.root, 'crashed-pids.json');
        const second = await turn({ turns: [[{ spawnChild: crashed }, { crash: 9 }]] });
        assert.match(failure(second.end).message, /exited with code 9/);
        const [, orphan] = JSON.parse(readFileSync(crashed, 'utf8')) as number[];
        assert.equal(await goneSoon(orphan), true, 'the child the crashed agent left behind is ended');
    });

    it('an agent that does not answer initialize in time is a Network error, and it is stopped', async () => {
        client = new AcpAgentClient({ name: 'mute', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] }, { host: new RecordingHost([sandbox.workspace]), limits: { initializeSeconds: 0.5 } });
        await assert.rejects(client.start(), (error: AcpAgentError) => error.info.category === 'Network' && /ACP agent "mute" did not answer initialize within 0.5 s/.test(error.message));
        assert.equal(await agentGone(), true);
    });
});
