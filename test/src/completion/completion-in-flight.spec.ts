import * as assert from 'node:assert/strict';
import {
    CancelledError, CompletionEngine, CompletionRequest, CompletionSettings, ContentLoader, ContextAssembler, DEFAULT_COMPLETION_SETTINGS, EnvironmentSecretsStore,
    sessionAgentFor, SessionManager, TokenEstimator
} from '@qodeassist/core';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { ollamaGenerateRecording } from '../fake-provider/recordings';

const CURSOR = '█';

function at(text: string, file = 'c.ts'): CompletionRequest {
    return { file: `/w/${file}`, relativePath: file, language: 'typescript', text: text.replace(CURSOR, ''), offset: text.indexOf(CURSOR) };
}

/** The typist types what the request under way will answer, or not: one request, or a new one. */
describe('CompletionEngine: a request under way answers the text typed into it', () => {
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    let engine: CompletionEngine;
    let settings: CompletionSettings;

    const requestsSeen = async (count: number) => {
        while (server.requests.length < count) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
    };
    const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url);
        fixture.project_('agents/fake-fim.toml', 'schema_version = 1\nname = "fake-fim"\nextends = "ollama-fim-qwen25coder"\nprovider_instance = "fake-ollama-provider"\nmodel = "fake-model"\n');
    });
    after(async () => {
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => {
        server.reset();
        settings = DEFAULT_COMPLETION_SETTINGS;
        const configuration = fixture.load();
        const estimator = new TokenEstimator();
        const secrets = new EnvironmentSecretsStore(FAKE_KEYS);
        const sessions = new SessionManager(name => sessionAgentFor(configuration.agents.get(name)!, secrets), { assembler: new ContextAssembler(estimator, new ContentLoader()), estimator });
        engine = new CompletionEngine({ agentFor: () => configuration.agents.get('fake-fim')!, sessions, estimator, settings: () => settings });
    });

    it('reuse alone: what was typed is a start of the coming answer → the rest, and no new request', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['compute', '(1, 2);']), chunkDelayMs: 150 });
        const first = engine.complete(at('const x = █'));
        await requestsSeen(1);
        const reused = await engine.reuse(at('const x = comp█'));
        assert.deepEqual([reused?.text, reused?.source], ['ute(1, 2);', 'in-flight']);
        assert.equal((await first).text, 'compute(1, 2);');
        assert.equal(server.requests.length, 1);
    });

    it('reuse alone: typed text the answer does not start with → nothing, and still no request', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['compute(1, 2);']), chunkDelayMs: 100 });
        const first = engine.complete(at('const x = █'));
        await requestsSeen(1);
        assert.equal(await engine.reuse(at('const x = make█')), undefined);
        assert.equal(await engine.reuse(at('let y = █', 'other.ts')), undefined, 'another file');
        await first;
        assert.equal(server.requests.length, 1);
    });

    it('the caller that started it gives up, one typing into it still waits: the request goes on and answers that one', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['compute', '(1, 2);']), chunkDelayMs: 200 });
        const starter = new AbortController();
        const first = failure(engine.complete(at('const x = █'), starter.signal));
        await requestsSeen(1);
        const second = engine.complete(at('const x = co█'));
        await new Promise(resolve => setTimeout(resolve, 20));
        starter.abort();
        assert.ok(await first instanceof CancelledError, 'the one that left is told so');
        assert.deepEqual([(await second).text, (await second).source], ['mpute(1, 2);', 'in-flight']);
        assert.equal(await server.requests[0].ended, 'completed');
        assert.equal(server.requests.length, 1);
    });

    it('when every caller waiting on it has given up, its HTTP request is aborted', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['slow ', 'answer']), chunkDelayMs: 2_000 });
        const starter = new AbortController();
        const typist = new AbortController();
        const first = failure(engine.complete(at('const x = █'), starter.signal));
        await requestsSeen(1);
        const second = failure(engine.complete(at('const x = s█'), typist.signal));
        await new Promise(resolve => setTimeout(resolve, 20));
        starter.abort();
        typist.abort();
        assert.ok(await first instanceof CancelledError);
        assert.ok(await second instanceof CancelledError);
        assert.equal(await server.requests[0].ended, 'aborted-by-client');
    });

    it('typing ahead across a new line is reused too, where the window of lines before the cursor moves', async () => {
        settings = { ...DEFAULT_COMPLETION_SETTINGS, context: { linesBefore: 2, linesAfter: 2, wholeFile: false } };
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['\n    return ', 'a + b;']), chunkDelayMs: 150 });
        const head = 'const a = 1;\nconst b = 2;\nconst c = 3;\nfunction f() {\n    const s = a + b;';
        const first = engine.complete(at(`${head}█\n}\n`));
        await requestsSeen(1);
        const second = await engine.complete(at(`${head}\n    ret█\n}\n`));
        assert.deepEqual([second.text, second.source], ['urn a + b;', 'in-flight']);
        await first;
        assert.equal(server.requests.length, 1);
    });

    it('typed something else, or all of it: a new request once the one under way has answered', async () => {
        server.enqueue(
            { kind: 'replay', recording: ollamaGenerateRecording(['compute(1, 2);']), chunkDelayMs: 100 },
            { kind: 'replay', recording: ollamaGenerateRecording(['(3);']) },
            { kind: 'replay', recording: ollamaGenerateRecording([' // done']) }
        );
        const first = engine.complete(at('const x = █'));
        await requestsSeen(1);
        const other = await engine.complete(at('const x = make█'));
        assert.deepEqual([other.text, other.source], ['(3);', 'model']);
        assert.equal((await first).text, 'compute(1, 2);', 'it had answered before the new one went');
        const whole = await engine.complete(at('const x = compute(1, 2);█'));
        assert.deepEqual([whole.text, whole.source], [' // done', 'model']);
        assert.equal(server.requests.length, 3);
    });

    it('one waiting on a request that a newer position replaced is cancelled and asks nothing itself', async () => {
        server.enqueue(
            { kind: 'replay', recording: ollamaGenerateRecording(['compute', '(1, 2);']), chunkDelayMs: 2_000 },
            { kind: 'replay', recording: ollamaGenerateRecording(['other();']) }
        );
        const first = failure(engine.complete(at('const x = █')));
        await requestsSeen(1);
        const typing = failure(engine.complete(at('const x = c█')));
        await new Promise(resolve => setTimeout(resolve, 20));
        const elsewhere = await engine.complete(at('let y = █', 'd.ts'));
        assert.equal(elsewhere.text, 'other();');
        assert.ok(await first instanceof CancelledError);
        assert.ok(await typing instanceof CancelledError);
        assert.equal(server.requests.length, 2, 'no third request from the one that was typing');
    });
});
