import * as assert from 'node:assert/strict';
import * as React from '@theia/core/shared/react';
import { renderToStaticMarkup } from 'react-dom/server';
import { RegistryAgentsState } from '../../common/config-protocol';
import { AcpRegistryView, AddOutcome } from './acp-registry-list';

const offline: RegistryAgentsState = {
    source: 'snapshot', date: '2026-11-26', notice: 'offline: showing the bundled snapshot from 2026-11-26 (no answer)',
    agents: [
        { id: 'copilot', name: 'Copilot', description: 'GitHub\'s agent', distribution: 'npx', installCommand: 'npx -y @github/copilot --acp', installNote: 'needs Node.js' },
        { id: 'mac-only', name: 'Mac', distribution: 'binary', installCommand: '', installNote: 'binary builds for darwin-aarch64', notOffered: 'the registry has no build of it for linux-x86_64' }
    ],
    problems: [{ id: 'shell', message: 'distribution.npx.args has the argument "a;b"' }]
};

const render = (state: RegistryAgentsState | undefined, outcomes: Record<string, AddOutcome> = {}) =>
    renderToStaticMarkup(<AcpRegistryView state={state} outcomes={outcomes} refresh={() => undefined} add={() => undefined} openFile={() => undefined} />);

describe('AcpRegistryView', () => {
    it('offline, says it shows the bundled snapshot and its date; offers Add with the copyable command, and says why an entry is not offered', () => {
        const html = render(offline);
        assert.match(html, /data-registry-source="snapshot"/);
        assert.match(html, /data-registry-notice="offline">offline: showing the bundled snapshot from 2026-11-26/);
        assert.match(html, /<tr data-registry-agent="copilot" data-offered="yes">.*<code class="qa-config-install-command">npx -y @github\/copilot --acp<\/code>.*data-action="copy-install".*data-action="add-registry-agent"/);
        assert.match(html, /<tr data-registry-agent="mac-only" data-offered="no">.*data-state="not-offered".*no build of it for linux-x86_64/);
        const macRow = html.slice(html.indexOf('data-registry-agent="mac-only"')).split('</tr>')[0];
        assert.ok(!macRow.includes('add-registry-agent'), 'no Add for an entry not offered');
        assert.match(html, /data-registry-problems="1".*shell: distribution\.npx\.args/);
    });

    it('disables Add where there is no user folder, and shows an Add\'s refusal or the file it wrote', () => {
        assert.match(render({ ...offline, cannotAdd: 'no user folder' }), /<button type="button" class="theia-button" data-action="add-registry-agent" disabled=""/);
        assert.match(render(offline, { copilot: { status: 'error', message: '/home/u/.qodeassist/acp/copilot.toml exists already' } }), /data-status="error" role="status">.*exists already/);
        assert.match(render(offline, { copilot: { status: 'added', file: '/home/u/.qodeassist/acp/copilot.toml' } }), /data-status="ok" role="status">.*Added/);
    });

    it('fetched, names the time the index was fetched; loading, says so', () => {
        assert.match(render({ source: 'registry', date: '2026-11-26T18:40:12.000Z', agents: [], problems: [] }), /as fetched 2026-11-26 18:40\..*Every agent it lists is configured already/);
        assert.match(render(undefined), /Reading the registry…/);
    });
});
