import * as assert from 'node:assert/strict';
import {
    applyEdits, CancelledError, ContentLoader, ContextAssembler, EnvironmentSecretsStore, NextEditEngine, NextEditRequest, pickAgent, QodeAssistError,
    sessionAgentFor, SessionManager, staleReason, TokenEstimator
} from '@qodeassist/core';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { ollamaGenerateRecording, openAITextRecording } from '../fake-provider/recordings';

const CURSOR = '█';
const BEFORE = 'function area(w: number, h: number) {\n    return w * h;\n}\n';

function at(text: string, previous = BEFORE): NextEditRequest {
    const offset = text.indexOf(CURSOR);
    return { file: '/w/area.ts', relativePath: 'area.ts', language: 'typescript', text: text.replace(CURSOR, ''), offset, previous, version: 7 };
}

describe('NextEditEngine over the fake provider', () => {
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    let engine: NextEditEngine;
    let agentName = 'fake-zeta';

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url);
        fixture.project_('agents/fake-zeta.toml', 'schema_version = 1\nname = "fake-zeta"\nextends = "zeta-ollama"\nprovider_instance = "fake-ollama-provider"\nmodel = "fake-model"\n');
        fixture.project_('agents/fake-instruct.toml', 'schema_version = 1\nname = "fake-instruct"\nextends = "openai-next-edit"\nprovider_instance = "fake-openai-provider"\nmodel = "fake-model"\n');
        fixture.project_('agents/rosters.toml', 'schema_version = 1\n\n[next_edit]\nagents = ["fake-zeta", "fake-instruct"]\n');
    });
    after(async () => {
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => {
        server.reset();
        agentName = 'fake-zeta';
        const configuration = fixture.load();
        assert.deepEqual(configuration.issues.filter(issue => issue.severity === 'error'), []);
        const estimator = new TokenEstimator();
        const secrets = new EnvironmentSecretsStore(FAKE_KEYS);
        const sessions = new SessionManager(name => sessionAgentFor(configuration.agents.get(name)!, secrets), { assembler: new ContextAssembler(estimator, new ContentLoader()), estimator });
        engine = new NextEditEngine({ agentFor: () => configuration.agents.get(agentName) ?? pickAgent(configuration, 'next_edit')!, sessions });
    });

    it('sends Zeta its prompt (edits as a diff, region and cursor marked) and turns the rewrite into the smallest edits', async () => {
        const text = 'function area(width█: number, h: number) {\n    return w * h;\n}\n';
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording([
            '<|editable_region_start|>\nfunction area(width<|user_cursor_is_here|>: number, h: number) {\n',
            '    return width * h;\n}\n\n<|editable_region_end|>\n```'
        ]) });
        const request = at(text);
        const suggestion = await engine.suggest(request);
        const body = JSON.parse(server.requests[0].body);
        assert.equal(server.requests[0].path, '/api/generate');
        assert.equal(body.raw, true);
        assert.match(body.prompt, /### User Edits:\n\nUser edited "area\.ts":\n```diff\n--- a\/area\.ts\n\+\+\+ b\/area\.ts\n@@ -1,3 \+1,3 @@\n-function area\(w: number/);
        assert.ok(body.prompt.includes('```area.ts\n<|start_of_file|>\n<|editable_region_start|>\nfunction area(width<|user_cursor_is_here|>: number, h: number) {\n    return w * h;\n}\n\n<|editable_region_end|>\n```\n\n### Response:\n'));
        assert.deepEqual(suggestion.edits, [{ offset: request.text.indexOf('w * h'), length: 1, text: 'width' }]);
        assert.equal(suggestion.version, 7);
        assert.equal(suggestion.agent, 'fake-zeta');
        assert.equal(applyEdits(request.text, suggestion.edits), 'function area(width: number, h: number) {\n    return width * h;\n}\n');
    });

    it('an instruct agent gets the region to rewrite and answers in a fence', async () => {
        agentName = 'fake-instruct';
        server.enqueue({ kind: 'replay', recording: openAITextRecording('```ts\nfunction area(width: number, h: number) {\n    return width * h;\n}\n\n```') });
        const request = at('function area(width█: number, h: number) {\n    return w * h;\n}\n');
        const suggestion = await engine.suggest(request);
        const body = JSON.parse(server.requests[0].body);
        assert.match(body.messages.at(-1).content, /<region>\nfunction area\(width<cursor>: number, h: number\) \{\n {4}return w \* h;\n\}\n\n<\/region>/);
        assert.equal(applyEdits(request.text, suggestion.edits), 'function area(width: number, h: number) {\n    return width * h;\n}\n');
    });

    it('a model that keeps the region as it was suggests no edit', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording([`<|editable_region_start|>\n${BEFORE}\n<|editable_region_end|>`]) });
        const suggestion = await engine.suggest(at(`${BEFORE}█`, BEFORE));
        assert.deepEqual(suggestion.edits, []);
        assert.doesNotMatch(JSON.parse(server.requests[0].body).prompt, /User edited/, 'no edits, no diff');
    });

    it('an answer out of format is a Provider error, not a suggestion', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['return width * h;']) });
        await assert.rejects(engine.suggest(at('function area(width█: number, h: number) {\n    return w * h;\n}\n')),
            (error: unknown) => error instanceof QodeAssistError && error.info.category === 'Provider' && /editable_region_start/.test(error.info.message));
    });

    it('a new request cancels the one under way', async () => {
        server.enqueue({ kind: 'hang' });
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['<|editable_region_start|>\nx\n\n<|editable_region_end|>']) });
        const first = engine.suggest(at('x█\n', 'y\n'));
        await until(() => server.requests.length === 1);
        const second = engine.suggest(at('x█\n', 'y\n'));
        await assert.rejects(first, CancelledError);
        assert.deepEqual((await second).edits, []);
    });

    it('a suggestion is stale once the document has another version or its region changed', () => {
        const suggestion = { version: 3, regionStart: 0, regionEnd: 5, regionText: 'hello' };
        assert.equal(staleReason(suggestion, { version: 3, text: 'hello world' }), undefined);
        assert.equal(staleReason(suggestion, { version: 4, text: 'hello world' }), 'typed');
        assert.equal(staleReason(suggestion, { version: 3, text: 'jello world' }), 'changed');
    });
});

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
        if (Date.now() > deadline) {
            throw new Error('timed out');
        }
        await new Promise(resolve => setTimeout(resolve, 10));
    }
}
