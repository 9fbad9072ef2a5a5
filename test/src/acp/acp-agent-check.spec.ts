import * as assert from 'node:assert/strict';
import { acpAgentStatus, AcpAgentEntry, testAcpAgent } from '@qodeassist/core';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Sandbox, SCRIPTED_AGENT } from './acp-test-host';
import { AgentScript } from './scripted-acp-agent';

/** The configuration view's status and Test of an external agent. */
describe('an external agent\'s status and Test handshake', function () {
    this.timeout(20_000);
    let sandbox: Sandbox;
    beforeEach(() => { sandbox = new Sandbox(); });
    afterEach(() => sandbox.dispose());

    const entry = (command: string, args: string[] = [], install?: string): AcpAgentEntry => ({
        name: 'scripted', command, args, env: [], enabled: true, layer: 'user', file: { label: 'acp/scripted.toml', path: '/x', text: '' }, ...(install ? { install } : {})
    });
    const scripted = (script: AgentScript) => entry(process.execPath, [SCRIPTED_AGENT, JSON.stringify(script)]);

    it('an installed agent: where its program is and the command line; a missing one: not installed, with how to install it', async () => {
        const found = await acpAgentStatus(scripted({ turns: [] }), [sandbox.workspace]);
        assert.equal(found.installedAt, process.execPath);
        assert.equal(found.problem, undefined);
        assert.match(found.commandLine, /scripted-acp-agent\.js/);
        const missing = await acpAgentStatus(entry('qodeassist-no-such-agent', [], 'npm install -g no-such-agent'), [sandbox.workspace]);
        assert.equal(missing.installedAt, undefined);
        assert.match(missing.problem ?? '', /qodeassist-no-such-agent is not installed.*Install it: npm install -g no-such-agent/);
    });

    it('a program inside the workspace is never counted as installed, nor started by Test', async () => {
        const copy = join(sandbox.workspace, 'node');
        copyFileSync(process.execPath, copy);
        const marker = join(sandbox.root, 'ran');
        const inside = entry(copy, ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`]);
        const status = await acpAgentStatus(inside, [sandbox.workspace]);
        assert.match(status.problem ?? '', /inside the workspace/);
        const test = await testAcpAgent(inside, [sandbox.workspace]);
        assert.equal(test.status, 'error');
        assert.throws(() => readFileSync(marker), /ENOENT/, 'the workspace\'s program never ran');
    });

    it('Test reports the handshake: protocol, name, version, what it takes; it opens no session and is offered no files or terminals', async () => {
        const test = await testAcpAgent(scripted({ turns: [], log: sandbox.log }), [sandbox.workspace]);
        assert.deepEqual(test, {
            status: 'ok', protocolVersion: 1, name: 'scripted-agent', title: 'Scripted agent', version: '1.0.0', loadSession: true,
            prompt: { image: true, audio: false, embeddedContext: true }, authMethods: []
        });
        const received = readFileSync(sandbox.log, 'utf8').trim().split('\n').map(line => JSON.parse(line) as { method?: string; params?: { clientCapabilities?: unknown } });
        assert.deepEqual(received.map(message => message.method), ['initialize'], 'no session was opened');
        assert.deepEqual(received[0].params?.clientCapabilities, { fs: { readTextFile: false, writeTextFile: false }, terminal: false });
    });

    it('an agent that crashes at start: the error with its output', async () => {
        const test = await testAcpAgent(scripted({ turns: [], crashOnInitialize: 3, startupStderr: 'missing login: run agent login' }), [sandbox.workspace]);
        assert.equal(test.status, 'error');
        assert.match(test.status === 'error' ? test.message : '', /missing login: run agent login/);
    });
});
