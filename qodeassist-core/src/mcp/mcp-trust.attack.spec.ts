import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { PermissionAnswer } from '../ports/permission-prompt';
import { FILE_TOOLS } from '../tools/file-tools';
import { AnyTool, defineTool } from '../tools/tool';
import { ToolContributorRegistry, ToolKitExecutor } from '../tools/tool-executor';
import { WorkspaceFiles } from '../tools/workspace-files';
import { McpConfigFiles } from './mcp-config';
import { mcpConsentDetails, McpConsentStore } from './mcp-consent';
import { McpHub, McpServerState } from './mcp-hub';
import { cleanClaimedName, describeMcpToolRequest, McpClientAllowances, McpToolPrompt } from './mcp-permission';
import { McpToolServer } from './mcp-server';

/** A "server" that only leaves a trace: each start writes one file into `runs`, then exits. */
const RUN_SCRIPT = 'require("fs").writeFileSync(require("path").join(process.argv[1], process.pid + "-" + Date.now()), "x")';

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
    for (const deadline = Date.now() + ms; !condition() && Date.now() < deadline;) {
        await new Promise(resolve => setTimeout(resolve, 50));
    }
}

describe('Project MCP servers: trust and consent', function () {
    this.timeout(30_000);
    let root: string;
    let home: string;
    let workspace: string;
    let runs: string;
    let hub: McpHub | undefined;
    let store: McpConsentStore;

    beforeEach(() => {
        root = mkdtempSync(join(tmpdir(), 'qa-mcp-trust-'));
        home = join(root, 'home');
        workspace = join(root, 'ws');
        runs = join(root, 'runs');
        for (const dir of [join(home, '.qodeassist'), join(workspace, '.qodeassist'), join(workspace, 'sub'), runs]) {
            mkdirSync(dir, { recursive: true });
        }
        store = new McpConsentStore(join(home, '.qodeassist', 'mcp-consent.json'));
    });
    afterEach(async () => {
        await hub?.dispose();
        hub = undefined;
        rmSync(root, { recursive: true, force: true });
    });

    const userFile = () => join(home, '.qodeassist', 'mcp.json');
    const projectFile = () => join(workspace, '.qodeassist', 'mcp.json');
    const trusted = (): McpConfigFiles => ({ user: userFile(), project: projectFile() });
    const untrusted = (): McpConfigFiles => ({ user: userFile() });
    const entry = (overrides: Record<string, unknown> = {}) => ({ command: process.execPath, args: ['-e', RUN_SCRIPT, runs], ...overrides });
    const write = (file: string, servers: Record<string, unknown>) => writeFileSync(file, JSON.stringify({ mcpServers: servers }));
    const runCount = () => readdirSync(runs).length;
    const state = (name: string): McpServerState | undefined => hub!.states().find(server => server.name === name);
    // Backoff long enough that a failed start is not retried while the test watches.
    const start = (files: McpConfigFiles, consentStore = store) => {
        hub = new McpHub(files, { backoffMs: 60_000, reloadDelayMs: 50, consent: consentStore.forWorkspace(workspace) }).start();
        return hub;
    };
    /** Enough time for a wrongly started process to have written its trace. */
    const pause = () => new Promise(resolve => setTimeout(resolve, 1_000));

    it('while the workspace is untrusted the project mcp.json is not listed and its server does not run', async () => {
        write(projectFile(), { evil: entry() });
        start(untrusted());
        await pause();
        assert.deepEqual(hub!.states(), []);
        assert.equal(runCount(), 0, 'the marker is absent');
    });

    it('trusted without consent: the server waits in needs-consent, showing command, args, cwd and env names but no env values; nothing runs', async () => {
        write(projectFile(), { evil: entry({ cwd: join(workspace, 'sub'), env: { API_TOKEN: 'sk-secret-value-123' } }) });
        start(trusted());
        await pause();
        const waiting = state('evil');
        assert.equal(waiting?.status, 'needs-consent');
        assert.deepEqual({ ...waiting!.consent, fingerprint: undefined }, {
            kind: 'mcp', name: 'evil', server: 'evil', source: projectFile(), transport: 'stdio', command: process.execPath, args: ['-e', RUN_SCRIPT, runs],
            cwd: join(workspace, 'sub'), envNames: ['API_TOKEN'], fingerprint: undefined
        });
        assert.doesNotMatch(JSON.stringify(hub!.states()), /sk-secret-value-123/);
        await hub!.reconnect('evil');
        await pause();
        assert.equal(runCount(), 0, 'neither loading nor Reconnect starts it');
    });

    it('starts only after consent to the fingerprint shown; the consent is kept in the user\'s home and holds after a restart', async () => {
        write(projectFile(), { evil: entry() });
        start(trusted());
        const fingerprint = state('evil')!.consent!.fingerprint;
        assert.equal(await hub!.grantConsent('evil', fingerprint), true);
        await until(() => runCount() === 1);
        assert.equal(runCount(), 1, 'the marker is present once consent is given');
        assert.notEqual(state('evil')?.status, 'needs-consent');
        assert.match(readFileSync(join(home, '.qodeassist', 'mcp-consent.json'), 'utf8'), new RegExp(fingerprint));
        assert.equal(existsSync(join(workspace, '.qodeassist', 'mcp-consent.json')), false, 'nothing is written into the workspace');

        await hub!.dispose();
        start(trusted(), new McpConsentStore(join(home, '.qodeassist', 'mcp-consent.json')));
        await until(() => runCount() === 2);
        assert.equal(runCount(), 2, 'a restarted hub starts the consented entry without asking');
    });

    // Functions: the folders exist only once each test has made them.
    for (const [what, edit] of [
        ['arguments', () => ({ args: ['-e', RUN_SCRIPT, runs, '--extra'] })],
        ['env variable names', () => ({ env: { NODE_OPTIONS: '' } })],
        ['working folder (cwd)', () => ({ cwd: join(workspace, 'sub') })]
    ] as const) {
        it(`an entry whose ${what} changed after consent waits for consent again and does not run`, async () => {
            write(projectFile(), { evil: entry() });
            start(trusted());
            await hub!.grantConsent('evil', state('evil')!.consent!.fingerprint);
            await until(() => runCount() === 1);
            assert.equal(runCount(), 1);

            write(projectFile(), { evil: entry(edit()) });
            await until(() => state('evil')?.status === 'needs-consent');
            await pause();
            assert.equal(state('evil')?.status, 'needs-consent');
            assert.equal(runCount(), 1, 'the edited entry did not run (marker2 absent)');

            assert.equal(await hub!.grantConsent('evil', state('evil')!.consent!.fingerprint), true);
            await until(() => runCount() === 2);
            assert.equal(runCount(), 2, 'consent to the edited entry starts it');
        });
    }

    it('refuses a consent for a stale or made-up fingerprint, and nothing runs', async () => {
        write(projectFile(), { evil: entry() });
        start(trusted());
        const shown = state('evil')!.consent!.fingerprint;
        write(projectFile(), { evil: entry({ args: ['-e', RUN_SCRIPT, runs, 'changed-after-showing'] }) });
        // Granted against the file as it is now, even before the hub noticed the change.
        assert.equal(await hub!.grantConsent('evil', shown), false);
        assert.equal(await hub!.grantConsent('evil', 'f'.repeat(64)), false);
        assert.equal(await hub!.grantConsent('no-such-server', shown), false);
        await pause();
        assert.equal(runCount(), 0);
        assert.equal(existsSync(join(home, '.qodeassist', 'mcp-consent.json')), false);
        assert.equal(state('evil')?.status, 'needs-consent');
    });

    it('a project server that takes a user server\'s name still needs consent; user-level servers start without one', async () => {
        write(userFile(), { mine: entry(), shared: entry() });
        write(projectFile(), { shared: entry({ args: ['-e', RUN_SCRIPT, runs, 'project'] }) });
        start(trusted());
        await until(() => runCount() === 1);
        await pause();
        assert.equal(runCount(), 1, 'only the user\'s own server ran');
        assert.equal(state('shared')?.status, 'needs-consent');
        assert.notEqual(state('mine')?.status, 'needs-consent');
        assert.equal(await hub!.grantConsent('mine', mcpConsentDetails({ name: 'mine', source: userFile(), transport: 'stdio', command: process.execPath, args: ['-e', RUN_SCRIPT, runs], disabled: false, timeouts: { initializeMs: 1, listMs: 1, callMs: 1 } }).fingerprint), false,
            'consent is only for project entries');
    });

    it('becoming trusted later shows the project server as needs-consent, still without running it', async () => {
        write(projectFile(), { evil: entry() });
        start(untrusted());
        hub!.setFiles(trusted());
        assert.equal(state('evil')?.status, 'needs-consent');
        hub!.setFiles(untrusted());
        assert.equal(state('evil'), undefined, 'losing trust drops the project servers');
        await pause();
        assert.equal(runCount(), 0);
    });

    it('a changed env value asks again though only names are shown (NODE_OPTIONS can make the same command run other code)', () => {
        const base = { name: 'local', source: projectFile(), transport: 'stdio' as const, command: 'node', args: ['server.js'], disabled: false, timeouts: { initializeMs: 1, listMs: 1, callMs: 1 } };
        const details = mcpConsentDetails({ ...base, env: { NODE_OPTIONS: '' } });
        assert.deepEqual(details.envNames, ['NODE_OPTIONS']);
        assert.notEqual(mcpConsentDetails({ ...base, env: { NODE_OPTIONS: '--require ./evil.js' } }).fingerprint, details.fingerprint);
        assert.doesNotMatch(JSON.stringify(mcpConsentDetails({ ...base, env: { NODE_OPTIONS: '--require ./evil.js' } })), /evil/);
    });

    it('fingerprints HTTP servers by url, transport and header names, never header values', () => {
        const base = { name: 'remote', source: projectFile(), transport: 'http' as const, url: 'http://127.0.0.1:9/mcp', disabled: false, timeouts: { initializeMs: 1, listMs: 1, callMs: 1 } };
        const details = mcpConsentDetails({ ...base, headers: { Authorization: 'Bearer one' } });
        assert.deepEqual(details.headerNames, ['Authorization']);
        assert.doesNotMatch(JSON.stringify(details), /Bearer one/);
        assert.equal(mcpConsentDetails({ ...base, headers: { Authorization: 'Bearer two' } }).fingerprint, details.fingerprint);
        assert.notEqual(mcpConsentDetails({ ...base, headers: { Authorization: 'x', Cookie: 'y' } }).fingerprint, details.fingerprint);
        assert.notEqual(mcpConsentDetails({ ...base, transport: 'sse', headers: { Authorization: 'x' } }).fingerprint, details.fingerprint);
        assert.notEqual(mcpConsentDetails({ ...base, url: 'http://127.0.0.1:10/mcp', headers: { Authorization: 'x' } }).fingerprint, details.fingerprint);
    });
});

describe('The MCP server\'s permission prompt', function () {
    this.timeout(30_000);
    const TOKEN = 'attack-token-0123456789abcdef0123';
    let workspace: string;
    let server: McpToolServer;
    let client: Client;
    const prompts: McpToolPrompt[] = [];
    const answers: PermissionAnswer[] = [];

    /** An execute tool that leaves a trace named by its argument. */
    const touch = defineTool({
        name: 'touch_marker', description: 'Writes a marker file.', permission: 'execute', parameters: z.strictObject({ name: z.string() }),
        run: async args => {
            writeFileSync(join(workspace, `${args.name}.marker`), 'x');
            return { content: 'done' };
        }
    });

    beforeEach(async () => {
        workspace = mkdtempSync(join(tmpdir(), 'qa-mcp-prompt-'));
        writeFileSync(join(workspace, 'notes.txt'), 'draft\nsecond line\n');
        prompts.length = 0;
        answers.length = 0;
        // Wired as the backend does: the per-client allowances in front of the tool kit, the prompt described from the request.
        server = new McpToolServer({
            port: 0, host: '127.0.0.1', token: TOKEN,
            toolsFor: (clientId, claimed) => {
                const registry = new ToolContributorRegistry();
                registry.register(() => [...FILE_TOOLS, touch as AnyTool]);
                const files = new WorkspaceFiles([workspace]);
                const allowances = new McpClientAllowances();
                return new ToolKitExecutor(registry, `mcp:${clientId}`, {
                    files,
                    permissions: {
                        ask: request => allowances.ask(request, async () => {
                            prompts.push(await describeMcpToolRequest(request, claimed, workspace, { files }));
                            return answers.shift() ?? 'deny';
                        })
                    }
                });
            }
        });
        await server.start();
        client = new Client({ name: 'Claude\u202Eedoc \u001b[31m\nQodeAssist: safe', version: '9.9' });
        await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    });
    afterEach(async () => {
        await client.close();
        await server.stop();
        rmSync(workspace, { recursive: true, force: true });
    });

    it('carries the client\'s claimed name (cleaned of control and bidi characters), the workspace, the path and the diff of an edit', async () => {
        answers.push('deny');
        const result = await client.callTool({ name: 'edit_file', arguments: { path: './notes.txt', old_text: 'draft', new_text: 'final' } });
        assert.equal(result.isError, true);
        assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'draft\nsecond line\n', 'a denied edit writes nothing');
        assert.equal(prompts.length, 1);
        const prompt = prompts[0];
        assert.equal(prompt.claimedClient, 'Claude edoc [31m QodeAssist: safe');
        assert.equal(prompt.claimedVersion, '9.9');
        assert.equal(prompt.workspace, workspace);
        assert.equal(prompt.path, 'notes.txt');
        assert.equal(prompt.permission, 'write');
        assert.match(prompt.diff ?? '', /^--- a\/notes\.txt\n\+\+\+ b\/notes\.txt\n@@ -1,2 \+1,2 @@\n-draft\n\+final\n second line\n$/);
    });

    it('shows a new file\'s content as a diff, and a path the tool will refuse as such', async () => {
        answers.push('deny', 'deny');
        await client.callTool({ name: 'create_file', arguments: { path: 'src/new.ts', content: 'export const x = 1;\n' } });
        await client.callTool({ name: 'create_file', arguments: { path: '../outside.txt', content: 'x' } });
        assert.equal(prompts[0].path, 'src/new.ts');
        assert.match(prompts[0].diff ?? '', /--- \/dev\/null\n\+\+\+ b\/src\/new\.ts\n@@ -0,0 \+1,1 @@\n\+export const x = 1;/);
        assert.equal(prompts[1].path, '../outside.txt');
        assert.ok(prompts[1].pathProblem, 'the prompt says the path is outside the workspace');
        assert.equal(existsSync(join(workspace, 'src', 'new.ts')), false);
    });

    it('"allow for this client" on an execute tool covers only the same arguments: other arguments ask again, and a denial runs nothing', async () => {
        answers.push('allow-chat');
        assert.equal((await client.callTool({ name: 'touch_marker', arguments: { name: 'a' } })).isError, false);
        assert.equal(prompts[0].allowForClient, 'same-arguments');
        answers.push('deny');
        assert.equal((await client.callTool({ name: 'touch_marker', arguments: { name: 'b' } })).isError, true);
        assert.equal(prompts.length, 2, 'different arguments asked again');
        assert.equal(existsSync(join(workspace, 'b.marker')), false, 'the denied call ran nothing');
        rmSync(join(workspace, 'a.marker'));
        assert.equal((await client.callTool({ name: 'touch_marker', arguments: { name: 'a' } })).isError, false);
        assert.equal(prompts.length, 2, 'the same arguments did not ask');
        assert.equal(existsSync(join(workspace, 'a.marker')), true);
    });

    it('"allow for this client" on a write tool covers that tool, not others', async () => {
        answers.push('allow-chat');
        await client.callTool({ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'draft', new_text: 'one' } });
        await client.callTool({ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'one', new_text: 'two' } });
        assert.equal(prompts.length, 1);
        assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'two\nsecond line\n');
        answers.push('deny');
        await client.callTool({ name: 'create_file', arguments: { path: 'other.txt', content: 'x' } });
        assert.equal(prompts.length, 2);
        assert.equal(existsSync(join(workspace, 'other.txt')), false);
    });

    it('"allow for this client" on a write tool never covers a protected path: .vscode/tasks.json asks again, and a denial writes nothing', async () => {
        answers.push('allow-chat');
        await client.callTool({ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'draft', new_text: 'one' } });
        assert.equal(prompts.length, 1);
        answers.push('deny');
        await client.callTool({ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'one', new_text: 'two' } });
        assert.equal(prompts.length, 1, 'the ordinary write is covered');
        await client.callTool({ name: 'create_file', arguments: { path: '.vscode/tasks.json', content: '{"tasks": []}' } });
        assert.equal(prompts.length, 2, 'the protected write asked again');
        assert.equal(existsSync(join(workspace, '.vscode', 'tasks.json')), false);
    });

    it('cleans claimed names and bounds their length', () => {
        assert.equal(cleanClaimedName(undefined), '(no name given)');
        assert.equal(cleanClaimedName('a\u200Bb\u2028c'), 'a b c');
        assert.equal(cleanClaimedName('x'.repeat(500)).length, 80);
    });
});
