import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { AddressInfo, createServer, Server } from 'node:net';
import { join } from 'node:path';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording } from '../fake-provider/recordings';

const BIN = join(__dirname, '..', '..', '..', 'qodeassist-core', 'bin', 'qodeassist-bench.js');

/** The bench under an administrator's policy: the same ledger, origins and refusals as the IDE. */
describe('qodeassist-bench under a managed policy (spawned)', function () {
    this.timeout(60_000);
    const server = new FakeProviderServer();
    let fixture: ConfigFixture;
    let home: string;
    let managed: string;

    const bench = (args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> => new Promise(resolve => {
        const child = spawn(process.execPath, [BIN, ...args], {
            cwd: fixture.workspace, env: { PATH: process.env.PATH, HOME: home, QODEASSIST_MANAGED_DIR: managed, ...FAKE_KEYS, ...env }
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', chunk => { stdout += chunk; });
        child.stderr.on('data', chunk => { stderr += chunk; });
        child.on('close', code => resolve({ code, stdout, stderr }));
    });

    before(() => server.start());
    after(() => server.stop());
    beforeEach(() => {
        server.reset();
        server.setDefault({ kind: 'replay', recording: openAITextRecording('ok', 100) });
        fixture = new ConfigFixture();
        // The user's own layer in their home, as the IDE reads it.
        writeFakeAgents(fixture, server.url, 'fake-openai', 'user');
        fixture.user_('agents/fake-priced.toml', 'schema_version = 1\nname = "fake-priced"\nextends = "fake-openai"\n\n[pricing."fake-model"]\ninput_per_mtok = 3000.0\noutput_per_mtok = 15000.0\n');
        home = join(fixture.root, 'home');
        mkdirSync(home, { recursive: true });
        symlinkSync(fixture.user, join(home, '.qodeassist'));
        mkdirSync(fixture.workspace, { recursive: true });
        managed = join(fixture.root, 'managed');
        mkdirSync(managed, { recursive: true });
    });
    afterEach(() => fixture.dispose());

    it('keeps the IDE\'s ledger with or without --config-dir: a run past the limit is refused naming max_daily_spend and the administrator', async () => {
        fixture.write(join(managed, 'policy.toml'), 'max_daily_spend = 0.4\ncurrency = "USD"\n');
        const first = await bench(['chat', '--agent', 'fake-priced', '--message', 'one']);
        assert.equal(first.code, 0, first.stderr);
        const ledger = join(home, '.qodeassist', 'spend.json');
        assert.ok((JSON.parse(readFileSync(ledger, 'utf8')) as { amounts: Record<string, number> }).amounts.USD >= 0.4);
        // Another configuration folder, the same user: the same ledger.
        const other = new ConfigFixture();
        try {
            writeFakeAgents(other, server.url, 'fake-openai', 'user');
            other.user_('agents/fake-priced.toml', 'schema_version = 1\nname = "fake-priced"\nextends = "fake-openai"\n\n[pricing."fake-model"]\ninput_per_mtok = 3000.0\noutput_per_mtok = 15000.0\n');
            const sent = server.requests.length;
            const second = await bench(['chat', '--agent', 'fake-priced', '--message', 'two', '--config-dir', other.user]);
            assert.equal(second.code, 1);
            assert.match(second.stderr, /spend limit of 0\.40 USD is reached \(0\.45 USD spent today\): max_daily_spend in .*policy\.toml, managed by your administrator/);
            assert.equal(server.requests.length, sent, 'nothing was sent past the limit');
            assert.equal(existsSync(join(other.user, 'spend.json')), false);
        } finally {
            other.dispose();
        }
    });

    it('--provider-url at an origin the policy does not allow: refused with the policy\'s words, and the server there receives no byte (no key)', async () => {
        const received: Buffer[] = [];
        const elsewhere: Server = createServer(socket => socket.on('data', chunk => received.push(chunk)));
        await new Promise<void>(resolve => elsewhere.listen(0, '127.0.0.1', resolve));
        const port = (elsewhere.address() as AddressInfo).port;
        try {
            fixture.write(join(managed, 'policy.toml'), `allowed_origins = ["${new URL(server.url).origin}"]\n`);
            const run = await bench(['chat', '--agent', 'fake-openai', '--message', 'hi', '--provider-url', `http://127.0.0.1:${port}/v1`]);
            assert.equal(run.code, 1);
            assert.match(run.stderr, new RegExp(`--provider-url http://127\\.0\\.0\\.1:${port}/v1 is managed by your administrator: allowed_origins in .*policy\\.toml does not include http://127\\.0\\.0\\.1:${port}\\. Nothing was sent\\.`));
            await new Promise(resolve => setTimeout(resolve, 200));
            const bytes = Buffer.concat(received).toString('latin1');
            assert.equal(bytes.length, 0);
            assert.ok(!bytes.includes(FAKE_KEYS.FAKE_OPENAI_API_KEY));
            // The allowed origin still works through --provider-url.
            const allowed = await bench(['chat', '--agent', 'fake-openai', '--message', 'hi', '--provider-url', `${server.url}/v1`]);
            assert.equal(allowed.code, 0, allowed.stderr);
        } finally {
            await new Promise(resolve => elsewhere.close(resolve));
        }
    });

    it('a forbidden agent, or one that extends it, is refused naming forbidden_agents, not "no agent named"', async () => {
        fixture.user_('agents/mine.toml', 'schema_version = 1\nname = "mine"\nextends = "fake-openai"\n');
        fixture.write(join(managed, 'policy.toml'), 'forbidden_agents = ["fake-openai"]\n');
        fixture.write(join(fixture.workspace, 'a.ts'), 'let a = 1;\n');
        const direct = await bench(['chat', '--agent', 'fake-openai', '--message', 'hi']);
        assert.equal(direct.code, 1);
        assert.match(direct.stderr, /^Config: The agent "fake-openai" is managed by your administrator: forbidden_agents in .*policy\.toml lists "fake-openai"\./m);
        const derived = await bench(['refactor', '--agent', 'mine', '--file', 'a.ts', '--range', '1:1-1:2', '--instruction', 'x']);
        assert.equal(derived.code, 1);
        assert.match(derived.stderr, /The agent "mine" is managed by your administrator: it extends "fake-openai", and forbidden_agents in .*policy\.toml lists "fake-openai"\./);
        const unknown = await bench(['chat', '--agent', 'nobody', '--message', 'hi']);
        assert.equal(unknown.code, 2);
        assert.match(unknown.stderr, /no agent named "nobody"/);
        assert.equal(server.requests.length, 0);
    });

    it('a named managed folder that is missing is the safe side: nothing is sent, and validate says to mount it', async () => {
        rmSync(managed, { recursive: true, force: true });
        const run = await bench(['chat', '--agent', 'fake-openai', '--message', 'hi']);
        assert.equal(run.code, 1);
        assert.match(run.stderr, /The agent "fake-openai" is managed by your administrator: its provider "fake-openai-provider" is at http:\/\/127\.0\.0\.1:\d+: the administrator's folder .*managed does not exist, so nothing is allowed until it is mounted\./);
        const validate = await bench(['validate']);
        assert.match(validate.stdout, /the administrator's folder .*managed \(QODEASSIST_MANAGED_DIR\) does not exist, so QodeAssist allows no provider/);
        assert.match(validate.stdout, /mount the administrator's folder at/);
        assert.equal(server.requests.length, 0);
    });

    it('./.env is read only with --env or --trust-workspace: a repository\'s key file does not replace the user\'s', async () => {
        fixture.write(join(fixture.workspace, '.env'), 'FAKE_OPENAI_API_KEY=sk-from-the-repository\n');
        const run = await bench(['chat', '--agent', 'fake-openai', '--message', 'hi']);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stderr, /\.env is not read \(it may be the repository's\)\. Pass --env \.env/);
        assert.equal(server.requests[0].headers.authorization, `Bearer ${FAKE_KEYS.FAKE_OPENAI_API_KEY}`);
        const trusted = await bench(['chat', '--agent', 'fake-openai', '--message', 'hi', '--trust-workspace']);
        assert.equal(trusted.code, 0, trusted.stderr);
        assert.equal(server.requests[1].headers.authorization, 'Bearer sk-from-the-repository');
    });
});
