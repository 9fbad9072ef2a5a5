import * as assert from 'node:assert/strict';
import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadManagedPolicy, ManagedPolicy } from '../config/managed-policy';
import { McpConsentStore } from '../mcp/mcp-consent';
import { clientMcpServerConfigs } from './client-mcp-servers';
import { SessionMcpServers } from './session-mcp-servers';

/** A "server" that only leaves a trace: each start writes one file into `runs`, then exits. */
const RUN_SCRIPT = 'require("fs").writeFileSync(require("path").join(process.argv[1], String(process.pid)), "x")';

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
    for (const deadline = Date.now() + ms; !condition() && Date.now() < deadline;) {
        await new Promise(resolve => setTimeout(resolve, 50));
    }
}

describe('A client\'s MCP servers for one session: managed policy, trust and consent', function () {
    this.timeout(30_000);
    let root: string;
    let runs: string;
    let store: McpConsentStore;
    let servers: SessionMcpServers | undefined;
    let http: Server | undefined;
    let hits: string[];

    beforeEach(() => {
        root = mkdtempSync(join(tmpdir(), 'qa-acp-mcp-'));
        runs = join(root, 'runs');
        mkdirSync(runs);
        store = new McpConsentStore(join(root, 'consents.json'));
        hits = [];
    });
    afterEach(async () => {
        await servers?.close();
        servers = undefined;
        await new Promise(resolve => http ? http.close(resolve) : resolve(undefined));
        http = undefined;
        rmSync(root, { recursive: true, force: true });
    });

    const probe = (name = 'probe') => ({ name, command: process.execPath, args: ['-e', RUN_SCRIPT, runs], env: [] });
    /** An HTTP endpoint that only counts what reaches it. */
    const endpoint = async (): Promise<string> => {
        http = createServer((request, response) => {
            hits.push(`${request.method} ${request.url}`);
            response.statusCode = 500;
            response.end();
        });
        await new Promise<void>(resolve => http!.listen(0, '127.0.0.1', resolve));
        return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    };
    /** Entries as the administrator writes them: a command line (words) or a table with the exact command and args. */
    const policy = (allowed: Array<string | { command: string; args: string[] }>): ManagedPolicy => {
        const dir = join(root, 'managed');
        mkdirSync(dir, { recursive: true });
        const entries = allowed.map(entry => typeof entry === 'string' ? JSON.stringify(entry) : `{ command = ${JSON.stringify(entry.command)}, args = ${JSON.stringify(entry.args)} }`);
        writeFileSync(join(dir, 'policy.toml'), `allowed_mcp_servers = [${entries.join(', ')}]\n`);
        return loadManagedPolicy(dir, []);
    };
    const open = (list: unknown[], options: { trusted: boolean; policy?: ManagedPolicy }) => {
        servers = new SessionMcpServers(clientMcpServerConfigs(list as never), {
            policy: options.policy, trusted: options.trusted, consent: store.forWorkspace(join(root, 'ws')), hub: { backoffMs: 60_000 }
        });
        return servers;
    };
    const runCount = () => readdirSync(runs).length;
    /** Enough time for a wrongly started process to have written its trace. */
    const pause = () => new Promise(resolve => setTimeout(resolve, 1_000));
    const answering = (optionId: string | undefined, asked: RequestPermissionRequest[] = []) => async (question: RequestPermissionRequest): Promise<RequestPermissionResponse> => {
        asked.push(question);
        return { outcome: optionId ? { outcome: 'selected', optionId } : { outcome: 'cancelled' } };
    };

    it('attack: a stdio and an HTTP server the policy does not allow are never started or contacted, and the refusal is a typed Config error', async () => {
        const url = await endpoint();
        const session = open([probe(), { type: 'http', name: 'remote', url, headers: [] }], { trusted: true, policy: policy(['/opt/approved/server']) });
        await pause();
        assert.equal(runCount(), 0, 'the marker is absent: no process started');
        assert.deepEqual(hits, [], 'no request reached the HTTP server');
        assert.deepEqual(session.states(), []);
        assert.deepEqual(session.refused.map(refusal => [refusal.server, refusal.error.category]), [['probe', 'Config'], ['remote', 'Config']]);
        assert.match(session.refused[1].error.message, /"remote" is managed by your administrator: allowed_mcp_servers does not include http:\/\/127\.0\.0\.1:\d+\/mcp \(.*policy\.toml\), so it was not started\. .*ask your administrator/);
    });

    it('attack: the allowed command with a client env NODE_OPTIONS is refused too (the env changes what runs)', async () => {
        // The probe's script argument holds spaces, so only a table entry allows it (a command line of words cannot).
        const allowed = { command: process.execPath, args: ['-e', RUN_SCRIPT, runs] };
        const session = open([{ ...probe(), env: [{ name: 'NODE_OPTIONS', value: '--require /tmp/payload.js' }] }], { trusted: true, policy: policy([allowed]) });
        await pause();
        assert.equal(runCount(), 0);
        assert.match(session.refused[0].error.message, /with env \(none\) only, and this server sets NODE_OPTIONS/);
    });

    it('in a trusted folder a server the policy allows starts without a question (the user\'s client passing it is the consent)', async () => {
        const session = open([probe()], { trusted: true, policy: policy([{ command: process.execPath, args: ['-e', RUN_SCRIPT, runs] }]) });
        await until(() => runCount() > 0);
        assert.equal(runCount(), 1);
        assert.deepEqual(session.waiting, []);
    });

    it('attack: in a folder that is not trusted nothing starts before the user agrees; a refusal or no answer starts nothing', async () => {
        const session = open([probe()], { trusted: false });
        await pause();
        assert.equal(runCount(), 0, 'not started while waiting');
        const asked: RequestPermissionRequest[] = [];
        const declined = await session.askConsent('s1', answering('do-not-start', asked));
        assert.deepEqual(declined.map(server => server.name), ['probe']);
        assert.equal(asked[0].toolCall.title, 'Start the MCP server "probe"');
        assert.deepEqual(asked[0].options.map(option => option.kind), ['allow_once', 'allow_always', 'reject_once']);
        await pause();
        assert.equal(runCount(), 0, 'refused: the marker is absent');

        await session.close();
        const again = open([probe()], { trusted: false });
        assert.deepEqual((await again.askConsent('s2', answering(undefined))).map(server => server.name), ['probe']);
        const broken = open([probe()], { trusted: false });
        assert.equal((await broken.askConsent('s3', () => Promise.reject(new Error('the client went away')))).length, 1);
        await pause();
        assert.equal(runCount(), 0, 'a cancelled or failed question starts nothing');
    });

    it('the question shows what runs and the variable names, never their values', async () => {
        const session = open([{ ...probe(), env: [{ name: 'API_TOKEN', value: 'sk-secret-value-123' }] }], { trusted: false });
        const asked: RequestPermissionRequest[] = [];
        await session.askConsent('s1', answering('do-not-start', asked));
        const shown = JSON.stringify(asked[0]);
        assert.match(shown, /API_TOKEN/);
        assert.doesNotMatch(shown, /sk-secret-value-123/);
        assert.match(shown, new RegExp(`it runs ${process.execPath.replace(/[/\\.]/g, '\\$&')} -e`));
    });

    it('"start for this session" starts it once; "always" is kept in the consent registry and the next session starts it without asking', async () => {
        const once = open([probe()], { trusted: false });
        assert.deepEqual(await once.askConsent('s1', answering('start-once')), []);
        await until(() => runCount() === 1);
        assert.equal(runCount(), 1);
        await once.close();
        assert.equal(open([probe()], { trusted: false }).waiting.length, 1, '"once" is not remembered');

        await servers!.close();
        const always = open([probe()], { trusted: false });
        await always.askConsent('s2', answering('start-always'));
        await until(() => runCount() === 2);
        assert.match(readFileSync(join(root, 'consents.json'), 'utf8'), /"name": "probe"/);
        await always.close();
        const next = open([probe()], { trusted: false });
        assert.deepEqual(next.waiting, [], 'consented: nothing to ask');
        await until(() => runCount() === 3);
        assert.equal(runCount(), 3);
        const changed = open([{ ...probe(), args: ['-e', RUN_SCRIPT, runs, '--other'] }], { trusted: false });
        assert.equal(changed.waiting.length, 1, 'other arguments are another server: asked again');
    });

    it('a server closed while its question is open does not start after the answer', async () => {
        const session = open([probe()], { trusted: false });
        let answer: (response: RequestPermissionResponse) => void = () => undefined;
        const asking = session.askConsent('s1', () => new Promise(resolve => { answer = resolve; }));
        await session.close();
        answer({ outcome: { outcome: 'selected', optionId: 'start-once' } });
        await asking;
        await pause();
        assert.equal(runCount(), 0);
    });
});
