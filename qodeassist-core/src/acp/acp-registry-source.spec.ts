import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadAcpAgents } from '../config/acp-agent-config';
import { ConfigIssue } from '../config/config-issue';
import { configLayers } from '../config/config-layers';
import { QodeAssistError } from '../wire/error-info';
import { AcpRegistryCatalogue, bundledRegistrySnapshot, checkRegistryUrl, registryCacheFile, writeRegistryAgent } from './acp-registry-source';

const bundledAgents = dirname(require.resolve('@qodeassist/agents/package.json'));

const entry = (id: string, description: string) => ({
    id, name: `Agent ${id}`, version: '0.1.0', description, repository: `https://example.com/${id}`,
    distribution: { npx: { package: `@example/${id}@0.1.0`, args: ['--acp'] } }
});

/** A registry on 127.0.0.1 answering with whatever `answer` holds now. */
async function fakeRegistry(answer: { body: string; type?: string }): Promise<{ server: Server; url: string; requests: () => number }> {
    let requests = 0;
    const server = createServer((_request, response) => {
        requests++;
        response.writeHead(200, { 'content-type': answer.type ?? 'application/json' });
        response.end(answer.body);
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/registry.json`, requests: () => requests };
}

describe('acp-registry-source', function () {
    this.timeout(20_000);
    let root: string;
    let user: string;
    let server: Server | undefined;

    beforeEach(() => {
        root = mkdtempSync(join(tmpdir(), 'qodeassist-acp-registry-'));
        user = join(root, 'user');
    });
    afterEach(async () => {
        await new Promise(resolve => server ? server.close(resolve) : resolve(undefined));
        server = undefined;
        rmSync(root, { recursive: true, force: true });
    });

    const catalogue = (options: Partial<ConstructorParameters<typeof AcpRegistryCatalogue>[0]> = {}) =>
        new AcpRegistryCatalogue({ snapshotFile: bundledRegistrySnapshot(bundledAgents), platform: 'linux-x86_64', timeoutMs: 2_000, ...options });

    it('picks up a changed index from the registry, keeps it in the user\'s folder, and shows it when the registry is gone', async () => {
        const answer = { body: JSON.stringify({ version: '1.0.0', agents: [entry('first', 'one')] }) };
        const fake = await fakeRegistry(answer);
        server = fake.server;
        const registry = catalogue();
        const first = await registry.read(fake.url, registryCacheFile(user));
        assert.deepEqual([first.source, first.notice, first.offers.map(offer => offer.id)], ['registry', undefined, ['first']]);

        answer.body = JSON.stringify({ version: '1.0.0', agents: [entry('first', 'one'), entry('second', 'two')] });
        assert.deepEqual((await registry.read(fake.url, registryCacheFile(user))).offers.map(offer => offer.id), ['first'], 'reused while fresh');
        assert.deepEqual((await registry.read(fake.url, registryCacheFile(user), true)).offers.map(offer => offer.id), ['first', 'second'], 'refreshed');
        assert.equal(fake.requests(), 2);
        assert.ok(existsSync(registryCacheFile(user)));

        await new Promise(resolve => fake.server.close(resolve));
        server = undefined;
        const offline = await catalogue().read(fake.url, registryCacheFile(user));
        assert.equal(offline.source, 'cache');
        assert.deepEqual(offline.offers.map(offer => offer.id), ['first', 'second']);
        assert.match(offline.notice ?? '', /^offline: showing the registry as fetched on \d{4}-\d{2}-\d{2}/);
    });

    it('falls back to the bundled snapshot, saying so with its date, when the registry cannot be reached', async () => {
        const state = await catalogue({ timeoutMs: 1_000 }).read('http://127.0.0.1:9/registry.json', registryCacheFile(user));
        const snapshotDate = (JSON.parse(readFileSync(bundledRegistrySnapshot(bundledAgents), 'utf8')) as { snapshot: string }).snapshot;
        assert.equal(state.source, 'snapshot');
        assert.ok(state.notice?.startsWith(`offline: showing the bundled snapshot from ${snapshotDate}`), state.notice);
        assert.ok(state.offers.some(offer => offer.id === 'claude-code'));
        assert.equal(existsSync(registryCacheFile(user)), false);
    });

    it('attack: an oversized or non-JSON answer is refused whole: the snapshot stays, nothing is cached', async () => {
        const answer = { body: JSON.stringify({ version: '1.0.0', agents: Array.from({ length: 50 }, (_, n) => entry(`a${n}`, 'x'.repeat(1000))) }) };
        const fake = await fakeRegistry(answer);
        server = fake.server;
        const big = await catalogue({ maxBytes: 10_000 }).read(fake.url, registryCacheFile(user));
        assert.equal(big.source, 'snapshot');
        assert.match(big.notice ?? '', /over 10000 bytes/);
        answer.body = JSON.stringify({ version: '1.0.0', agents: [entry('html', 'x')] });
        (answer as { type?: string }).type = 'text/html';
        const html = await catalogue().read(fake.url, registryCacheFile(user));
        assert.equal(html.source, 'snapshot');
        assert.match(html.notice ?? '', /text\/html, not JSON/);
        assert.equal(existsSync(registryCacheFile(user)), false);
    });

    it('takes https, or plain http to this machine only, as the registry URL', () => {
        assert.equal(checkRegistryUrl('https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json').protocol, 'https:');
        assert.equal(checkRegistryUrl('http://127.0.0.1:8080/r.json').hostname, '127.0.0.1');
        assert.throws(() => checkRegistryUrl('http://registry.example.com/r.json'), QodeAssistError);
        assert.throws(() => checkRegistryUrl('https://user:pw@registry.example.com/r.json'), QodeAssistError);
        assert.throws(() => checkRegistryUrl('file:///etc/passwd'), QodeAssistError);
    });

    it('Add writes the user\'s acp/<id>.toml, which the definition loader accepts; a second Add refuses to replace it', async () => {
        const registry = catalogue();
        const offer = await registry.offer(undefined, undefined, 'github-copilot-cli');
        assert.ok(offer?.fileText);
        const file = await writeRegistryAgent(user, offer);
        assert.equal(file, join(user, 'acp', 'github-copilot-cli.toml'));
        const issues: ConfigIssue[] = [];
        const agents = loadAcpAgents(configLayers({ bundledAgents, bundledProviders: bundledAgents, user }), issues);
        assert.deepEqual(issues, []);
        const loaded = agents.get('github-copilot-cli');
        assert.deepEqual([loaded?.layer, loaded?.command, loaded?.args], ['user', 'npx', ['-y', '@github/copilot', '--acp']]);

        writeFileSync(file, '# mine\ncommand = "my-copilot"\n');
        await assert.rejects(writeRegistryAgent(user, offer), (error: QodeAssistError) => /exists already; QodeAssist does not replace it/.test(error.message));
        assert.equal(readFileSync(file, 'utf8'), '# mine\ncommand = "my-copilot"\n');
        assert.deepEqual(readdirSync(join(user, 'acp')), ['github-copilot-cli.toml'], 'no temporary file left');
    });

    it('attack: Add of an entry that is not offered writes nothing', async () => {
        await assert.rejects(writeRegistryAgent(user, { id: 'envy', name: 'E', distribution: 'npx', installCommand: '', installNote: '', notOffered: 'it sets environment values' }), QodeAssistError);
        assert.equal(existsSync(join(user, 'acp')), false);
    });
});
