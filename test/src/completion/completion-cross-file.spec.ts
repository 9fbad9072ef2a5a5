import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
    CompletionContextRetriever, CompletionEngine, CompletionRequest, ContentLoader, DEFAULT_DEFINITIONS, DEFAULT_RETRIEVER, ContextAssembler, DEFAULT_COMPLETION_SETTINGS, EnvironmentSecretsStore, SessionEvent, sessionAgentFor,
    SessionManager, TokenEstimator, WorkspaceFiles, workspaceAccess
} from '@qodeassist/core';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { ollamaGenerateRecording } from '../fake-provider/recordings';

describe('CompletionEngine with cross-file context', () => {
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    let root: string;
    let agent = 'fake-fim';
    let engine: CompletionEngine;
    let events: SessionEvent[];
    let budget = 1024;

    const write = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
    };
    const at = (path: string, marked: string): CompletionRequest => ({
        file: join(root, path), relativePath: path, language: 'typescript', text: marked.replace('█', ''), offset: marked.indexOf('█'), project: 'shop',
        workspace: workspaceAccess(new WorkspaceFiles([root]))
    });

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url);
        fixture.project_('agents/fake-fim.toml', 'schema_version = 1\nname = "fake-fim"\nextends = "ollama-fim-qwen25coder"\nprovider_instance = "fake-ollama-provider"\nmodel = "fake-model"\n');
        fixture.project_('agents/fake-codellama.toml', 'schema_version = 1\nname = "fake-codellama"\nextends = "ollama-fim-codellama"\nprovider_instance = "fake-ollama-provider"\nmodel = "fake-model"\n');
        fixture.project_('agents/fake-small.toml', 'schema_version = 1\nname = "fake-small"\nextends = "ollama-fim-qwen25coder"\nprovider_instance = "fake-ollama-provider"\nmodel = "fake-model"\ncompletion_context_tokens = 0\n');
    });
    after(async () => {
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => {
        server.reset();
        agent = 'fake-fim';
        budget = 1024;
        events = [];
        root = realpathSync(mkdtempSync(join(tmpdir(), 'qa-cross-file-')));
        write('src/cart.ts', 'export interface Cart {\n    items: Item[];\n}\nexport function totalOf(cart: Cart, taxRate: number): number {\n    return 0;\n}\n');
        const configuration = fixture.load();
        const estimator = new TokenEstimator();
        const secrets = new EnvironmentSecretsStore(FAKE_KEYS);
        const sessions = new SessionManager(name => sessionAgentFor(configuration.agents.get(name)!, secrets), { assembler: new ContextAssembler(estimator, new ContentLoader()), estimator });
        engine = new CompletionEngine({
            agentFor: () => configuration.agents.get(agent)!, sessions, estimator, onEvents: batch => events.push(...batch),
            settings: () => ({ ...DEFAULT_COMPLETION_SETTINGS, contextBudget: budget }),
            // No deadlines: a loaded test machine must not change what is found.
            retriever: new CompletionContextRetriever(text => estimator.estimateText(text), undefined,
                { ...DEFAULT_RETRIEVER, definitions: { ...DEFAULT_DEFINITIONS, deadlineMs: Infinity }, recentFilesDeadlineMs: Infinity })
        });
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('sends the definitions the file imports in the agent\'s repository format, and lists them in the outcome and the manifest', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['totalOf(cart, 0.2);']) });
        const outcome = await engine.complete(at('src/checkout.ts', "import { Cart, totalOf } from './cart';\n\nexport function pay(cart: Cart) {\n    const sum = █\n}\n"));
        assert.equal(outcome.text, 'totalOf(cart, 0.2);');
        assert.equal(JSON.parse(server.requests[0].body).prompt, '<|repo_name|>shop\n<|file_sep|>src/cart.ts\n'
            + 'export interface Cart {\n    items: Item[];\n}\n\nexport function totalOf(cart: Cart, taxRate: number): number {\n'
            + '<|file_sep|>src/checkout.ts\n<|fim_prefix|>import { Cart, totalOf } from \'./cart\';\n\nexport function pay(cart: Cart) {\n    const sum = <|fim_suffix|>\n}\n<|fim_middle|>');
        assert.deepEqual(outcome.context?.map(record => [record.source, record.path, record.symbol]), [['definition', 'src/cart.ts', 'Cart'], ['definition', 'src/cart.ts', 'totalOf']]);
        const manifest = events.find(event => event.type === 'Manifest');
        assert.ok(manifest && manifest.type === 'Manifest');
        assert.deepEqual(manifest.manifest.sections.map(section => [section.name, section.placement]), [['definition src/cart.ts', 'repo_files']]);
        assert.ok(manifest.manifest.sections[0].tokens > 0);
    });

    it('sends none to an agent whose template has no place for it, or whose budget is 0', async () => {
        const marked = "import { totalOf } from './cart';\nconst sum = █\n";
        agent = 'fake-codellama';
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['1;']) });
        const plain = await engine.complete(at('src/a.ts', marked));
        assert.equal(plain.context, undefined);
        assert.ok(!server.requests[0].body.includes('totalOf(cart'), 'nothing of cart.ts went');
        agent = 'fake-small';
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['2;']) });
        await engine.complete(at('src/b.ts', marked));
        assert.equal(JSON.parse(server.requests[1].body).prompt, "<|fim_prefix|>import { totalOf } from './cart';\nconst sum = <|fim_suffix|>\n<|fim_middle|>");
        agent = 'fake-fim';
        budget = 0;
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['3;']) });
        await engine.complete(at('src/c.ts', marked));
        assert.ok(!JSON.parse(server.requests[2].body).prompt.includes('<|file_sep|>'), 'the setting at 0 turns it off');
    });
});
