import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { ConfigurationService, EnvironmentSecretsStore, LaunchStatus, loadConfiguration, QodeAssistRuntime } from '@qodeassist/core';
import { ConfigFixture, FAKE_KEYS, ollamaChatRecording, ollamaGenerateRecording, useFakeProviderSuite, writeFakeAgents } from '@qodeassist/test';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { CompletionQuery } from '../common/completion-protocol';
import { QodeAssistCompletionServiceImpl } from './completion-service-impl';

async function freePort(): Promise<number> {
    return new Promise(done => {
        const server = createServer();
        server.listen(0, '127.0.0.1', () => {
            const port = (server.address() as { port: number }).port;
            server.close(() => done(port));
        });
    });
}

describe('QodeAssistCompletionServiceImpl', () => {
    const { server, fixture, configurations } = useFakeProviderSuite({
        prepare: fixture => {
            fixture.project_('agents/fake-fim.toml', 'schema_version = 1\nname = "fake-fim"\nextends = "ollama-fim-qwen25coder"\nprovider_instance = "fake-ollama-provider"\nmodel = "fake-model"\n');
            fixture.project_('agents/rosters.toml', 'schema_version = 1\n[completion]\nagents = ["fake-fim"]\n');
            fixture.write(join(fixture.workspace, '.qodeassistignore'), 'secret/\n');
        }
    });
    let service: QodeAssistCompletionServiceImpl;
    let nextId = 1;

    const query = (relativePath: string, text: string, overrides: Partial<CompletionQuery> = {}): CompletionQuery => ({
        id: nextId++, workspacePath: fixture.workspace, file: join(fixture.workspace, relativePath), relativePath, language: 'plaintext',
        text: text.replace('█', ''), offset: text.indexOf('█'),
        settings: { linesBefore: 50, linesAfter: 30, wholeFile: false, prose: 'drop', lines: 'auto', openFilesBudget: 0, useGitignore: true },
        ...overrides
    });

    beforeEach(() => {
        service = new QodeAssistCompletionServiceImpl(new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS) }), configurations);
    });
    afterEach(() => service.dispose());

    it('completes through the completion roster and serves typing ahead from its cache', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['a + b;']) });
        const answer = await service.complete(query('src/add.ts', 'function add(a, b) {\n    return █\n}\n'));
        assert.deepEqual([answer.text, answer.source, answer.agent, answer.error], ['a + b;', 'model', 'fake-fim', undefined]);
        assert.ok(answer.elapsedMs >= 0);
        const again = await service.complete(query('src/add.ts', 'function add(a, b) {\n    return a █\n}\n'));
        assert.deepEqual([again.text, again.source], ['+ b;', 'cache']);
        assert.equal(server.requests.length, 1);
    });

    it('skips ignored files and oversized ones with the reason, without asking a model', async () => {
        const ignored = await service.complete(query('secret/keys.ts', 'const key = █'));
        assert.match(ignored.skipped ?? '', /secret\/keys\.ts is excluded by \.qodeassistignore or \.gitignore/);
        const huge = await service.complete(query('src/big.ts', `${'x'.repeat(1_000_001)}█`));
        assert.match(huge.skipped ?? '', /more than 1,000,000 characters/);
        assert.equal(server.requests.length, 0);
    });

    it('shares only open editors that are workspace files no ignore rule hides, named relative to the workspace', async () => {
        // An instruct agent: its prompt lists the context files.
        const instruct = new ConfigFixture();
        try {
            writeFakeAgents(instruct, server.url);
            instruct.project_('agents/fake-instruct.toml', 'schema_version = 1\nname = "fake-instruct"\nextends = "ollama-completion"\nprovider_instance = "fake-ollama-provider"\nmodel = "fake-model"\n');
            instruct.project_('agents/rosters.toml', 'schema_version = 1\n[completion]\nagents = ["fake-instruct"]\n');
            instruct.write(join(instruct.workspace, '.qodeassistignore'), 'secret/\n');
            const served = new QodeAssistCompletionServiceImpl(new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS) }), { forWorkspace: () => new ConfigurationService(instruct.roots) });
            server.enqueue({ kind: 'replay', recording: ollamaChatRecording(['1;']) });
            const openFiles = [
                { path: join(instruct.workspace, 'src', 'helper.ts'), content: 'export const HELPER_MARKER = 1;\n' },
                { path: join(instruct.workspace, 'secret', 'keys.ts'), content: 'export const IGNORED_MARKER = 2;\n' },
                { path: '/etc/hosts', content: 'OUTSIDE_MARKER\n' }
            ];
            const base = query('src/use.ts', 'const x = █');
            const answer = await served.complete({ ...base, workspacePath: instruct.workspace, file: join(instruct.workspace, 'src', 'use.ts'), openFiles, settings: { ...base.settings, openFilesBudget: 4_000 } });
            served.dispose();
            assert.equal(answer.error, undefined);
            const body = server.requests[0].body;
            assert.match(body, /Context file src\/helper\.ts:\\n```\\nexport const HELPER_MARKER/);
            assert.doesNotMatch(body, /IGNORED_MARKER|OUTSIDE_MARKER/);
            assert.ok(!body.includes(instruct.workspace), 'no absolute path reaches the model');
        } finally {
            instruct.dispose();
        }
    });

    it('cancel(id) cancels that query only and it answers as cancelled; errors come back as data', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['slow']), chunkDelayMs: 2_000 });
        const slow = query('src/a.ts', 'const a = █');
        const pending = service.complete(slow);
        while (server.requests.length < 1) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        await service.cancel(slow.id + 1000);
        await service.cancel(slow.id);
        assert.deepEqual((await pending).cancelled, true);
        assert.equal(await server.requests[0].ended, 'aborted-by-client');
        server.enqueue({ kind: 'status', status: 401, body: 'nope' });
        const failed = await service.complete(query('src/b.ts', 'let b = █'));
        assert.equal(failed.error?.category, 'Auth');
        assert.equal(failed.text, '');
    });

    describe('a provider whose local server QodeAssist starts ([launch])', () => {
        /** A stand-in for `ollama serve`: listens after a moment and completes every /api/generate with "a + b;". */
        const FAKE_OLLAMA = `
const http = require('node:http');
const [port] = process.argv.slice(2);
setTimeout(() => http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
        response.writeHead(200, { 'content-type': request.url === '/api/tags' ? 'application/json' : 'application/x-ndjson' });
        response.end(request.url === '/api/tags' ? '{"models":[]}' : ${JSON.stringify(ollamaGenerateRecording(['a + b;']))});
    });
}).listen(Number(port), '127.0.0.1'), 200);
`;
        let launched: ConfigFixture;
        let runtime: QodeAssistRuntime;
        let served: QodeAssistCompletionServiceImpl;
        let told: LaunchStatus[];

        beforeEach(async () => {
            launched = new ConfigFixture();
            const port = await freePort();
            const script = launched.write(join(launched.root, 'fake-ollama.js'), FAKE_OLLAMA);
            launched.user_('providers/local.toml', `schema_version = 1\nname = "local"\nclient_api = "ollama"\nurl = "http://127.0.0.1:${port}"\n`
                + `[launch]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([script, String(port)])}\nstart_timeout = 20\n`);
            launched.user_('agents/local-fim.toml', 'schema_version = 1\nname = "local-fim"\nextends = "ollama-fim-qwen25coder"\nprovider_instance = "local"\nmodel = "m"\n');
            launched.user_('agents/rosters.toml', 'schema_version = 1\n[completion]\nagents = ["local-fim"]\n');
            const local = new ConfigurationService(launched.roots);
            runtime = new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore({}), userHome: launched.root });
            served = new QodeAssistCompletionServiceImpl(runtime, { forWorkspace: () => local });
            told = [];
            served.setClient({ onLaunchStatus: status => told.push(status) });
        });
        afterEach(async () => {
            served.dispose();
            runtime.dispose();
            await runtime.launcher.dispose();
            launched.dispose();
        });

        it('tells the window "starting Local…" while its completion waits, then that it is ready, and the completion arrives', async () => {
            const answer = await served.complete({ ...query('src/add.ts', 'function add(a, b) {\n    return █\n}\n'), workspacePath: launched.workspace, file: join(launched.workspace, 'src', 'add.ts') });
            assert.deepEqual([answer.text, answer.error], ['a + b;', undefined]);
            await new Promise(resolve => setImmediate(resolve));
            assert.deepEqual(told.map(status => [status.state, status.summary]), [['starting', 'starting Local…'], ['ready', 'Local is ready']]);
            assert.match(told[0].message, /^starting Local… \(.*waiting up to 20 s\)$/);
        });

        it('a start no completion of this window waits for is not shown', async () => {
            await runtime.launcher.ensureRunning(loadConfiguration(launched.roots).providers.get('local')!);
            await new Promise(resolve => setImmediate(resolve));
            assert.deepEqual(runtime.launcher.running, ['local']);
            assert.deepEqual(told, []);
        });
    });
});
