import * as assert from 'node:assert/strict';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server as HttpServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpConsentStore } from '../mcp/mcp-consent';
import { FeatureServerFixture } from '../mcp/mcp-features.spec-support';
import { WorkspaceFiles } from '../tools/workspace-files';
import { clientMcpServerConfigs } from './client-mcp-servers';
import { SessionMcpServers } from './session-mcp-servers';

describe('A client\'s MCP server that needs what qodeassist-acp cannot give', function () {
    this.timeout(30_000);
    let root: string;
    let servers: SessionMcpServers | undefined;
    let http: HttpServer | undefined;
    let fixture: FeatureServerFixture | undefined;
    const logged: string[] = [];
    const options = () => ({
        policy: undefined, trusted: true, consent: new McpConsentStore(join(root, 'consents.json')).forWorkspace(root),
        hub: { backoffMs: 50, logger: { log: (_level: string, _category: string, message: string) => { logged.push(message); } } }
    });

    beforeEach(() => {
        root = mkdtempSync(join(tmpdir(), 'qa-acp-mcp-auth-'));
        logged.length = 0;
    });
    afterEach(async () => {
        await servers?.close();
        servers = undefined;
        http?.closeAllConnections();
        await new Promise<void>(resolve => http ? http.close(() => resolve()) : resolve());
        http = undefined;
        await fixture?.dispose();
        fixture = undefined;
        rmSync(root, { recursive: true, force: true });
    });

    it('a server answering 401 fails once, named, with the fix (an Authorization header from the client), and is not retried', async () => {
        let requests = 0;
        http = createServer((request, response) => {
            requests++;
            request.resume();
            response.writeHead(401, { 'www-authenticate': 'Bearer realm="locked"', 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
        });
        await new Promise<void>(resolve => http!.listen(0, '127.0.0.1', resolve));
        const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
        servers = new SessionMcpServers(clientMcpServerConfigs([{ type: 'http', name: 'locked', url, headers: [] }]), options());
        const states = await servers.settled(10_000);
        assert.deepEqual(states.map(state => [state.name, state.status]), [['locked', 'needs-sign-in']], JSON.stringify(states));
        const [refusal] = servers.unauthorized();
        assert.equal(refusal.server, 'locked');
        assert.equal(refusal.error.category, 'Auth');
        assert.match(refusal.error.message, /^The MCP server "locked" answered 401 \(it needs authorization\); qodeassist-acp cannot sign in to it .* pass the server with an "Authorization" header/);
        const seen = requests;
        await new Promise(resolve => setTimeout(resolve, 600)); // Twelve backoff periods.
        assert.equal(requests, seen, 'no reconnect loop against a server that needs credentials');
    });

    it('a server\'s question is declined without being shown, and the log names the server and why, not the server\'s text', async () => {
        const answers: ElicitResult[] = [];
        fixture = new FeatureServerFixture(server => {
            server.registerTool('ask', { description: 'Asks the user' }, async () => {
                const result = await server.server.elicitInput({ message: 'MARKER-QUESTION-TEXT', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
                answers.push(JSON.parse(JSON.stringify(result)));
                return { content: [{ type: 'text', text: result.action }] };
            });
        });
        const url = await fixture.listen();
        servers = new SessionMcpServers(clientMcpServerConfigs([{ type: 'http', name: 'asker', url, headers: [] }]), options());
        assert.deepEqual((await servers.settled(10_000)).map(state => state.status), ['ready']);
        const tool = servers.tools().find(candidate => candidate.name === 'mcp_asker_ask')!;
        const result = await tool.run({}, { requestId: 'r', chatId: 'c', files: new WorkspaceFiles([root]) });
        assert.deepEqual(answers, [{ action: 'decline' }]);
        assert.equal(result.content, 'decline');
        const lines = logged.filter(line => line.includes('asked the user a question'));
        assert.equal(lines.length, 1, logged.join('\n'));
        assert.match(lines[0], /^The MCP server "asker" asked the user a question \(form mode\); it was declined: qodeassist-acp cannot show a server's questions/);
        assert.ok(!logged.some(line => line.includes('MARKER-QUESTION-TEXT')), 'the server\'s own text is not logged');
    });
});
