import * as assert from 'node:assert/strict';
import { ManagedPolicy } from '../config/managed-policy';
import { authorizationServerRefusal, metadataRefusal, policyAuthorizationOrigins } from './mcp-oauth-rules';

const GITHUB_MCP = new URL('https://api.githubcopilot.com/mcp/');
const policy = (allowed: ManagedPolicy['allowedMcpServers']): ManagedPolicy => ({ dir: '/etc/qodeassist', forbiddenAgents: [], allowedMcpServers: allowed });

describe('MCP OAuth rules: which authorization server a server may send the user to', () => {
    it('without a managed policy another origin is allowed (the user is shown it); it must be https', () => {
        assert.equal(authorizationServerRefusal(new URL('https://github.com/login/oauth'), { server: GITHUB_MCP, policyOrigins: undefined }), undefined);
        assert.match(authorizationServerRefusal(new URL('http://github.com/login/oauth'), { server: GITHUB_MCP, policyOrigins: undefined })!, /is not https/);
        // http only between loopback addresses (a local server and its local authorization server).
        assert.equal(authorizationServerRefusal(new URL('http://127.0.0.1:9/'), { server: new URL('http://127.0.0.1:8/mcp'), policyOrigins: undefined }), undefined);
        assert.match(authorizationServerRefusal(new URL('http://127.0.0.1:9/'), { server: GITHUB_MCP, policyOrigins: undefined })!, /is not https/);
    });

    it('under allowed_mcp_servers the server\'s own origin, or the origins its { url, authorization_servers } entry lists', () => {
        const listed = policyAuthorizationOrigins(policy([{ url: 'https://api.githubcopilot.com/mcp/', authorization_servers: ['https://github.com/'] }]), GITHUB_MCP.href);
        assert.deepEqual(listed, ['https://github.com']);
        assert.equal(authorizationServerRefusal(new URL('https://github.com/login/oauth'), { server: GITHUB_MCP, policyOrigins: listed }), undefined);
        const plain = policyAuthorizationOrigins(policy(['https://api.githubcopilot.com/*']), GITHUB_MCP.href);
        assert.deepEqual(plain, []);
        assert.match(authorizationServerRefusal(new URL('https://github.com/login/oauth'), { server: GITHUB_MCP, policyOrigins: plain })!,
            /allowed_mcp_servers entry for https:\/\/api\.githubcopilot\.com\/mcp\/ does not list https:\/\/github\.com in authorization_servers/);
        assert.equal(authorizationServerRefusal(new URL('https://api.githubcopilot.com/oauth'), { server: GITHUB_MCP, policyOrigins: plain }), undefined);
        assert.equal(policyAuthorizationOrigins(undefined, GITHUB_MCP.href), undefined);
    });

    it('a pre-registered client\'s secret goes only to the issuer it names (or the server\'s own origin)', () => {
        const rule = { server: GITHUB_MCP, policyOrigins: undefined, preregistered: { authorizationServer: 'https://github.com/login/oauth' } };
        assert.equal(authorizationServerRefusal(new URL('https://github.com/login/oauth/'), rule), undefined);
        assert.match(authorizationServerRefusal(new URL('https://evil.example/'), rule)!, /registered with https:\/\/github\.com\/login\/oauth, not https:\/\/evil\.example\//);
        assert.match(authorizationServerRefusal(new URL('https://github.com/'), { ...rule, preregistered: {} })!, /registered with https:\/\/api\.githubcopilot\.com/);
    });

    it('the endpoints of the authorization server\'s metadata are on its own origin', () => {
        const as = new URL('https://github.com/login/oauth');
        const base = { issuer: as.href, response_types_supported: ['code'] };
        assert.equal(metadataRefusal({ ...base, authorization_endpoint: 'https://github.com/login/oauth/authorize', token_endpoint: 'https://github.com/login/oauth/access_token' }, as), undefined);
        assert.match(metadataRefusal({ ...base, authorization_endpoint: 'https://github.com/a', token_endpoint: 'http://169.254.169.254/token' }, as)!, /token_endpoint is on http:\/\/169\.254\.169\.254/);
    });
});
