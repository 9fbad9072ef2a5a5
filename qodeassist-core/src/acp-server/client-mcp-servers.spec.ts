import * as assert from 'node:assert/strict';
import type { McpServer } from '@agentclientprotocol/sdk';
import { DEFAULT_MCP_TIMEOUTS } from '../mcp/mcp-config';
import { QodeAssistError } from '../wire/error-info';
import { CLIENT_MCP_SOURCE, clientMcpServerConfigs } from './client-mcp-servers';

const base = { source: CLIENT_MCP_SOURCE, disabled: false, timeouts: DEFAULT_MCP_TIMEOUTS };

/** The Validation error a list is refused with. */
function refusal(servers: unknown[]): string {
    try {
        clientMcpServerConfigs(servers as McpServer[]);
    } catch (error) {
        assert.ok(error instanceof QodeAssistError, String(error));
        assert.equal(error.info.category, 'Validation');
        return error.info.message;
    }
    assert.fail('the list was taken');
}

describe('clientMcpServerConfigs: the servers of session/new as the hub\'s entries', () => {
    it('a stdio server: command and args as the argv, env [{name, value}] as the only added variables', () => {
        assert.deepEqual(clientMcpServerConfigs([{ name: 'probe', command: '/usr/bin/node', args: ['server.js', '--flag'], env: [{ name: 'X', value: 'y' }] }]), [
            { ...base, name: 'probe', transport: 'stdio', command: '/usr/bin/node', args: ['server.js', '--flag'], env: { X: 'y' } }
        ]);
        const [bare] = clientMcpServerConfigs([{ name: 'bare', command: 'server', args: [], env: [] }]);
        assert.equal('env' in bare, false, 'no env: nothing is added to the base');
    });

    it('an http and an sse server: the URL and the headers as given', () => {
        assert.deepEqual(clientMcpServerConfigs([
            { type: 'http', name: 'remote', url: 'https://mcp.example.com/mcp', headers: [{ name: 'Authorization', value: 'Bearer abc' }] },
            { type: 'sse', name: 'old', url: 'http://127.0.0.1:3000/sse', headers: [] }
        ]), [
            { ...base, name: 'remote', transport: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer abc' } },
            { ...base, name: 'old', transport: 'sse', url: 'http://127.0.0.1:3000/sse', headers: {} }
        ]);
    });

    it('a name meant for people becomes a hub name (its tools are mcp_<name>_<tool>)', () => {
        assert.equal(clientMcpServerConfigs([{ name: 'My Notes (local)', command: 'notes', args: [], env: [] }])[0].name, 'My_Notes__local_');
    });

    for (const [what, servers, expected] of [
        ['a URL that is not http or https', [{ type: 'http', name: 'f', url: 'file:///etc/passwd', headers: [] }], /"f" of session\/new has a file: URL\. Only http: and https: servers are connected\./],
        ['a URL that is not one', [{ type: 'http', name: 'u', url: 'not a url', headers: [] }], /has the URL "not a url", which is not one/],
        ['an empty command', [{ name: 'e', command: ' ', args: [], env: [] }], /"e" of session\/new has no command to start/],
        ['a relative program path (it would run what the start folder holds)', [{ name: 'r', command: 'npx -y @modelcontextprotocol/server-github', args: [], env: [] }], /neither a program name nor an absolute path/],
        ['a relative program path with a slash', [{ name: 'r', command: 'bin/server', args: [], env: [] }], /neither a program name nor an absolute path/],
        ['an argument with a NUL', [{ name: 'n', command: 'x', args: ['a\0b'], env: [] }], /arguments that are not plain strings/],
        ['a variable name with "="', [{ name: 'v', command: 'x', args: [], env: [{ name: 'A=B', value: '1' }] }], /the variable name "A=B"/],
        ['a header value with a line break', [{ type: 'http', name: 'h', url: 'http://127.0.0.1/', headers: [{ name: 'X-A', value: 'a\r\nX-B: b' }] }], /a value for X-A that cannot be passed on/],
        ['a header given twice (names are case-insensitive)', [{ type: 'http', name: 'h', url: 'http://127.0.0.1/', headers: [{ name: 'X-A', value: '1' }, { name: 'x-a', value: '2' }] }], /sets x-a twice/],
        ['two servers of one name', [{ name: 'a', command: 'x', args: [], env: [] }, { name: 'a', command: 'y', args: [], env: [] }], /same name as another server/],
        ['an unknown type', [{ type: 'ws', name: 'w', url: 'ws://x' }], /has the unknown type "ws"/]
    ] as const) {
        it(`refuses ${what}, naming the server and the fix`, () => {
            assert.match(refusal([...servers]), expected);
        });
    }
});
