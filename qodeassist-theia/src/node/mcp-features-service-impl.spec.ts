import { FeatureServerFixture, until } from '@qodeassist/core/lib/mcp/mcp-features.spec-support';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { WorkspaceFiles } from '@qodeassist/core';
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpElicitationAnswer, McpElicitationRequest } from '../common/mcp-features-protocol';
import { McpElicitationRouter, QodeAssistMcpFeaturesServiceImpl } from './mcp-features-service-impl';
import { McpHubs } from './mcp-service-impl';

const REQUEST: McpElicitationRequest = { server: 'srv', message: 'Which?', mode: 'form', fields: [], chatId: 'c' };

/** A window's client that records questions and answers each with `answer` (or never, when undefined). */
function windowClient(answer: McpElicitationAnswer | undefined) {
    const asked: string[] = [];
    const withdrawn: string[] = [];
    return {
        asked, withdrawn,
        client: {
            requestMcpElicitation: (id: string) => {
                asked.push(id);
                return answer ? Promise.resolve(answer) : new Promise<McpElicitationAnswer>(() => undefined);
            },
            withdrawMcpElicitation: (id: string) => { withdrawn.push(id); }
        }
    };
}

describe('MCP questions reach the window of their workspace', () => {
    it('the newest window showing the hub\'s workspace answers; another workspace\'s window is never asked', async () => {
        const router = new McpElicitationRouter();
        const older = windowClient({ action: 'decline' });
        const other = windowClient({ action: 'accept', content: { x: 1 } });
        const newer = windowClient({ action: 'accept', content: { x: 2 } });
        router.add({ client: older.client, workspace: '/work/app' });
        router.add({ client: newer.client, workspace: '/work/app/' });
        router.add({ client: other.client, workspace: '/work/other' });
        const answer = await router.promptFor('/work/app').ask(REQUEST, new AbortController().signal);
        assert.deepEqual(answer, { action: 'accept', content: { x: 2 } });
        assert.equal(newer.asked.length, 1);
        assert.equal(older.asked.length + other.asked.length, 0);
    });

    it('with no window of the workspace the question is cancelled; a stopped turn withdraws the form', async () => {
        const router = new McpElicitationRouter();
        assert.deepEqual(await router.promptFor('/work/app').ask(REQUEST, new AbortController().signal), { action: 'cancel' });
        const waiting = windowClient(undefined);
        router.add({ client: waiting.client, workspace: '/work/app' });
        const turn = new AbortController();
        void router.promptFor('/work/app').ask(REQUEST, turn.signal);
        turn.abort();
        assert.deepEqual(waiting.withdrawn, waiting.asked);
        assert.equal(waiting.withdrawn.length, 1);
    });

    it('a window that went is not asked any more', async () => {
        const router = new McpElicitationRouter();
        const gone = windowClient({ action: 'accept' });
        const remove = router.add({ client: gone.client, workspace: '/work/app' });
        remove();
        assert.deepEqual(await router.promptFor('/work/app').ask(REQUEST, new AbortController().signal), { action: 'cancel' });
        assert.equal(gone.asked.length, 0);
    });
});

describe('MCP features of a window, through the backend\'s hubs, against a real SDK server', function () {
    this.timeout(30_000);
    let fixture: FeatureServerFixture;
    let hubs: McpHubs;
    afterEach(async () => {
        await hubs.dispose();
        await fixture.dispose();
    });

    it('the window that watches the workspace gets the server\'s question; the server gets the answer, the roots and offers its resources', async () => {
        fixture = new FeatureServerFixture(server => {
            server.registerResource('readme', 'docs://readme.md', { mimeType: 'text/markdown' }, async uri => ({ contents: [{ uri: uri.href, text: '# Hi' }] }));
            server.registerTool('ask', { description: 'Asks, then reports the roots and the answer' }, async () => {
                const answer = await server.server.elicitInput({ message: 'Region?', requestedSchema: { type: 'object', properties: { region: { type: 'string', enum: ['eu', 'us'] } } } });
                const { roots } = await server.server.listRoots();
                return { content: [{ type: 'text', text: JSON.stringify({ answer: answer.content, roots: roots.map(root => root.uri) }) }] };
            });
        });
        const url = await fixture.listen();
        const home = join(fixture.root, 'home');
        const workspace = join(fixture.root, 'ws');
        mkdirSync(join(home, '.qodeassist'), { recursive: true });
        mkdirSync(workspace);
        writeFileSync(join(home, '.qodeassist', 'mcp.json'), JSON.stringify({ mcpServers: { srv: { url } } }));
        hubs = new McpHubs(home);
        const router = new McpElicitationRouter();
        const service = new QodeAssistMcpFeaturesServiceImpl(hubs, router);
        const asked: McpElicitationRequest[] = [];
        service.setClient({
            requestMcpElicitation: async (_id, request) => { asked.push(request); return { action: 'accept', content: { region: 'eu' } }; },
            withdrawMcpElicitation: () => undefined
        });
        await service.watch(workspace, [workspace]);
        const hub = hubs.hubFor(workspace);
        await hub.settled(20_000);
        assert.deepEqual((await service.catalog(workspace)).resources.map(resource => resource.uri), ['docs://readme.md']);
        const tool = hub.tools().find(candidate => candidate.name === 'mcp_srv_ask')!;
        const result = await tool.run({}, { requestId: 'r', chatId: 'chat-3', files: new WorkspaceFiles([workspace]) });
        assert.deepEqual(JSON.parse(result.content), { answer: { region: 'eu' }, roots: [pathToFileURL(workspace).href] });
        assert.deepEqual(asked.map(request => [request.server, request.chatId, request.message]), [['srv', 'chat-3', 'Region?']]);
        service.dispose();
    });

    it('roots: a server listing them right after connect gets the workspace folder; the window\'s folders follow with list_changed', async () => {
        const listed: string[][] = [];
        fixture = new FeatureServerFixture(server => {
            const list = async (relatedRequestId?: string | number) => {
                const { roots } = await server.server.listRoots(undefined, { relatedRequestId });
                listed.push(roots.map(root => root.uri));
            };
            server.registerTool('roots', { description: 'Lists the client roots' }, async extra => {
                await list(extra.requestId);
                return { content: [{ type: 'text', text: 'listed' }] };
            });
            server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => void list());
        });
        const url = await fixture.listen();
        const home = join(fixture.root, 'home');
        const workspace = join(fixture.root, 'ws');
        const second = join(fixture.root, 'lib');
        mkdirSync(join(home, '.qodeassist'), { recursive: true });
        mkdirSync(workspace);
        writeFileSync(join(home, '.qodeassist', 'mcp.json'), JSON.stringify({ mcpServers: { srv: { url } } }));
        hubs = new McpHubs(home);
        // Only the backend knows the workspace here: no window has watched it yet.
        const hub = hubs.hubFor(workspace);
        await hub.settled(20_000);
        await hub.tools().find(tool => tool.name === 'mcp_srv_roots')!.run({}, { requestId: 'r', chatId: 'c', files: new WorkspaceFiles([workspace]) });
        assert.deepEqual(listed, [[pathToFileURL(workspace).href]]);
        const service = new QodeAssistMcpFeaturesServiceImpl(hubs, new McpElicitationRouter());
        await service.watch(workspace, [workspace, second]);
        await until(() => listed.length === 2, 'the server to list roots again');
        assert.deepEqual(listed[1], [pathToFileURL(workspace).href, pathToFileURL(second).href]);
        service.dispose();
    });
});
