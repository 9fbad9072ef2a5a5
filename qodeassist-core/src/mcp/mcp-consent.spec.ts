import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { consentFingerprint } from '../config/consent-registry';
import { mcpConsentDetails } from './mcp-consent';

describe('mcpConsentDetails in the one consent registry', () => {
    const config = {
        name: 'helper', source: '/repo/.qodeassist/mcp.json', transport: 'stdio' as const, command: '/usr/bin/node', args: ['server.js'],
        env: { NODE_OPTIONS: '--inspect' }, cwd: '/repo', disabled: false, timeouts: { initializeMs: 1, listMs: 1, callMs: 1 }
    };

    it('keeps the fingerprint of consents given before the registry held other kinds (they stay valid)', () => {
        // The formula of the MCP-only store: sha256 over what is shown and the env values.
        const shown = { transport: 'stdio', command: '/usr/bin/node', args: ['server.js'], cwd: '/repo', envNames: ['NODE_OPTIONS'] };
        const before = createHash('sha256').update(JSON.stringify({ shown, hidden: [['NODE_OPTIONS', '--inspect']] })).digest('hex');
        assert.equal(mcpConsentDetails(config).fingerprint, before);
    });

    it('is of the MCP kind, named by the server, and never the fingerprint of an agent entry showing the same', () => {
        const details = mcpConsentDetails(config);
        assert.deepEqual([details.kind, details.name, details.server], ['mcp', 'helper', 'helper']);
        const shown = { command: '/usr/bin/node', args: ['server.js'], cwd: '/repo', envNames: ['NODE_OPTIONS'] };
        assert.notEqual(consentFingerprint('acp', shown), consentFingerprint('mcp', shown));
    });
});
