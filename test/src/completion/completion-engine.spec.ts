import * as assert from 'node:assert/strict';
import {
    CancelledError, CompletionEngine, CompletionRequest, ContentLoader, ContextAssembler, EnvironmentSecretsStore, pickAgent, QodeAssistError,
    sessionAgentFor, SessionManager, TokenEstimator
} from '@qodeassist/core';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { ollamaGenerateRecording, openAITextRecording, openAITextStreamRecording } from '../fake-provider/recordings';

const CURSOR = '█';

function at(file: string, text: string): CompletionRequest {
    const offset = text.indexOf(CURSOR);
    return { file: `/w/${file}`, relativePath: file, language: 'typescript', text: text.replace(CURSOR, ''), offset };
}

describe('CompletionEngine over the fake provider', () => {
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    let engine: CompletionEngine;
    let completionAgent = 'fake-fim';

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url);
        fixture.project_('agents/fake-fim.toml', 'schema_version = 1\nname = "fake-fim"\nextends = "ollama-fim-qwen25coder"\nprovider_instance = "fake-ollama-provider"\nmodel = "fake-model"\n');
        fixture.project_('agents/fake-instruct.toml', 'schema_version = 1\nname = "fake-instruct"\nextends = "openai-completion"\nprovider_instance = "fake-openai-provider"\nmodel = "fake-model"\n');
    });
    after(async () => {
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => {
        server.reset();
        completionAgent = 'fake-fim';
        const configuration = fixture.load();
        const estimator = new TokenEstimator();
        const secrets = new EnvironmentSecretsStore(FAKE_KEYS);
        const sessions = new SessionManager(name => sessionAgentFor(configuration.agents.get(name)!, secrets), { assembler: new ContextAssembler(estimator, new ContentLoader()), estimator });
        engine = new CompletionEngine({
            agentFor: () => configuration.agents.get(completionAgent) ?? pickAgent(configuration, 'completion')!,
            sessions, estimator
        });
    });

    it('asks a FIM agent in its own tokens, post-processes the answer, and serves typing ahead from the cache', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['    return ', 'a + b;\n']) });
        const request = at('math.ts', 'export function add(a: number, b: number) {\n    █\n}\n');
        const outcome = await engine.complete(request);
        assert.deepEqual([outcome.text, outcome.source, outcome.agent], ['return a + b;', 'model', 'fake-fim']);
        const body = JSON.parse(server.requests[0].body);
        assert.equal(server.requests[0].path, '/api/generate');
        assert.equal(body.prompt, '<|fim_prefix|>export function add(a: number, b: number) {\n    <|fim_suffix|>\n}\n<|fim_middle|>');
        assert.equal(body.raw, true);
        const typed = at('math.ts', 'export function add(a: number, b: number) {\n    retu█\n}\n');
        assert.deepEqual(await engine.complete(typed), { text: 'rn a + b;', source: 'cache' });
        assert.equal(server.requests.length, 1, 'typing ahead sends nothing');
    });

    it('an instruct agent gets the code around the cursor; its fenced, echoed answer becomes the insertion', async () => {
        completionAgent = 'fake-instruct';
        server.enqueue({ kind: 'replay', recording: openAITextRecording('```ts\n    const total = items.reduce((sum, item) => sum + item, 0);\n```') });
        const outcome = await engine.complete(at('sum.ts', 'function f(items: number[]) {\n    const total = █\n}\n'));
        assert.equal(outcome.text, 'items.reduce((sum, item) => sum + item, 0);');
        const body = JSON.parse(server.requests[0].body);
        assert.match(body.messages.at(-1).content, /Active file: sum\.ts \(typescript\)[\s\S]*<code>function f\(items: number\[\]\) \{\n {4}const total = <cursor>\n\}\n<\/code>/);
    });

    it('a host\'s environment goes to an instruct agent\'s system prompt once, without the root, and leaves a FIM body as it was', async () => {
        const environment = { workspaceName: 'w', workspaceRoot: '/home/ann/w', os: 'Linux', branch: 'main', buildCommand: 'make', activeFile: 'sum.ts', language: 'typescript' };
        completionAgent = 'fake-instruct';
        server.enqueue({ kind: 'replay', recording: openAITextRecording('1;') });
        await engine.complete({ ...at('sum.ts', 'const total = █\n'), environment });
        const instruct = JSON.parse(server.requests[0].body);
        assert.equal(instruct.messages[0].content,
            'Workspace: w\nOS: Linux\nGit branch: main\nBuild command: make\n\nYou are a code completion engine. You insert code at the cursor; you never chat.');
        assert.equal(instruct.messages.at(-1).content.match(/Active file: /g).length, 1, 'the file line is the user message\'s alone');
        assert.ok(!server.requests[0].body.includes('/home/ann'), 'no absolute path');

        completionAgent = 'fake-fim';
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['2;']) });
        await engine.complete({ ...at('sum.ts', 'const other = █\n'), environment });
        assert.equal(JSON.parse(server.requests[1].body).prompt, '<|fim_prefix|>const other = <|fim_suffix|>\n<|fim_middle|>');
    });

    it('a newer request cancels the older one: its HTTP request is aborted and its promise settles', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['slow ', 'answer']), chunkDelayMs: 2_000 });
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['fast']) });
        const first = engine.complete(at('a.ts', 'const a = █')).then(() => undefined, (error: unknown) => error);
        while (server.requests.length < 1) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        const second = await engine.complete(at('a.ts', 'let b = █'));
        assert.equal(second.text, 'fast');
        assert.ok(await first instanceof CancelledError);
        assert.equal(await server.requests[0].ended, 'aborted-by-client');
    });

    it('typing ahead into a request still under way reuses its answer instead of asking again', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['compute', '(1, 2);']), chunkDelayMs: 150 });
        const first = engine.complete(at('c.ts', 'const x = █'));
        while (server.requests.length < 1) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        const second = await engine.complete(at('c.ts', 'const x = com█'));
        assert.deepEqual([second.text, second.source], ['pute(1, 2);', 'in-flight']);
        assert.equal((await first).text, 'compute(1, 2);');
        assert.equal(server.requests.length, 1);
    });

    it('a caller that gives up while waiting on a request under way starts no new one', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['other', ' text']), chunkDelayMs: 300 });
        const first = engine.complete(at('f.ts', 'const x = █'));
        while (server.requests.length < 1) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        const controller = new AbortController();
        const second = engine.complete(at('f.ts', 'const x = co█'), controller.signal).then(() => undefined, (error: unknown) => error);
        controller.abort();
        assert.ok(await second instanceof CancelledError);
        assert.equal((await first).text, 'other text');
        assert.equal(server.requests.length, 1);
    });

    it('stops the stream after the first line when the cursor is inside a line', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['price * count\n', 'const other = 1;\n', 'const more = 2;\n']), chunkDelayMs: 300 });
        const outcome = await engine.complete(at('d.ts', 'const total = █ + tax;\n'));
        assert.equal(outcome.text, 'price * count');
        assert.equal(await server.requests[0].ended, 'aborted-by-client', 'the rest was not waited for');
        assert.ok(server.requests[0].recordsSent < 3, String(server.requests[0].recordsSent));
    });

    it('an instruct agent inside a line is not cut at a line of prose: it stops after the first line of code in its fence', async () => {
        completionAgent = 'fake-instruct';
        server.enqueue({
            kind: 'replay', chunkDelayMs: 300,
            recording: openAITextStreamRecording(['Here is the expression:\n', '```ts\n', 'price * count\n', 'const other = 1;\n', '```\n', 'It multiplies.'])
        });
        const outcome = await engine.complete(at('f.ts', 'const total = █ + tax;\n'));
        assert.equal(outcome.text, 'price * count');
        assert.equal(await server.requests[0].ended, 'aborted-by-client', 'the rest was not waited for');
    });

    it('a provider failure rejects with its typed error; an aborted caller settles as cancelled', async () => {
        server.enqueue({ kind: 'status', status: 500, body: 'boom' }, { kind: 'status', status: 500, body: 'boom' }, { kind: 'status', status: 500, body: 'boom' });
        await assert.rejects(engine.complete(at('e.ts', 'x█')), (error: unknown) => error instanceof QodeAssistError && error.info.category === 'Provider');
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['never']), chunkDelayMs: 2_000 });
        const controller = new AbortController();
        const pending = engine.complete(at('e.ts', 'y█'), controller.signal);
        while (server.requests.length < 4) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        controller.abort();
        await assert.rejects(pending, (error: unknown) => error instanceof CancelledError);
    });
});
