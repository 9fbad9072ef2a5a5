import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { benchToolSettings, DEFAULT_CONTEXT, DEFAULT_POSTPROCESS, EnvironmentSecretsStore, QodeAssistRuntime, runBench } from '@qodeassist/core';
import { FAKE_KEYS, ollamaChatRecording, openAITextRecording, useFakeProviderSuite } from '@qodeassist/test';
import { join } from 'node:path';
import { QodeAssistChatClient, SessionEvent } from '../common/chat-protocol';
import { QodeAssistChatServiceImpl } from './chat-service-impl';
import { QodeAssistCompletionServiceImpl } from './completion-service-impl';
import { QodeAssistRefactorServiceImpl } from './refactor-service-impl';

/**
 * The IDE and the bench run the same feature code: for the same inputs, the provider receives
 * the same request body from the IDE's RPC services as from `qodeassist-bench`.
 */
describe('the same request body from the IDE and from the bench', () => {
    const source = 'export function reverse(text: string): string {\n    <CURSOR>\n}\n';
    // An import: both hosts send the definition it names (cross-file context read from the workspace).
    const importing = "import { flip } from './flip';\n\nexport function mirror(text: string): string {\n    <CURSOR>\n}\n";
    const { server, fixture, configurations } = useFakeProviderSuite({
        prepare: fixture => {
            fixture.project_('agents/fake-instruct.toml', 'schema_version = 1\nname = "fake-instruct"\nextends = "ollama-completion"\nprovider_instance = "fake-ollama-provider"\nmodel = "fake-model"\n');
            fixture.project_('agents/rosters.toml', 'schema_version = 1\n[chat]\nagents = ["fake-openai"]\n[completion]\nagents = ["fake-instruct"]\n[refactor]\nagents = ["fake-openai"]\n');
            fixture.write(join(fixture.workspace, 'src', 'reverse.ts'), source);
            fixture.write(join(fixture.workspace, 'src', 'flip.ts'), 'export function flip(chars: string[]): string[] {\n    return chars.reverse();\n}\n');
            fixture.write(join(fixture.workspace, 'src', 'mirror.ts'), importing);
            fixture.write(join(fixture.workspace, 'AGENTS.md'), 'Keep functions pure.\n');
        }
    });
    let runtime: QodeAssistRuntime;

    beforeEach(() => {
        // The bench's user home is --config-dir's parent; the IDE's is the user's home: the same folder here.
        runtime = new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS), userHome: fixture.root });
    });
    afterEach(() => runtime.dispose());

    async function bench(args: string[]): Promise<string> {
        const out: string[] = [];
        const err: string[] = [];
        const code = await runBench([...args, '--workspace', fixture.workspace, '--config-dir', fixture.user, '--trust-workspace'], {
            out: line => out.push(line), err: line => err.push(line), env: FAKE_KEYS, cwd: fixture.workspace, home: fixture.root, onInterrupt: () => () => undefined
        });
        assert.equal(code, 0, err.join('\n'));
        return out.join('\n');
    }

    /** The one body the fake provider received since the last reset, parsed. */
    function received(): unknown {
        assert.equal(server.requests.length, 1, 'one request');
        const body = JSON.parse(server.requests[0].body);
        server.reset();
        return body;
    }

    it('chat: the agent, the environment block, the tools and the message', async () => {
        const events: SessionEvent[] = [];
        const client = {
            onSessionEvents: (_id: string, batch: SessionEvent[]) => events.push(...batch), onChatNotice: () => undefined,
            requestToolPermission: async () => 'deny', getDiagnostics: async () => [], readOpenDocument: async () => undefined, writeDocument: async () => undefined,
            requestAgentPermission: async () => ({ cancelled: true })
        } as QodeAssistChatClient;
        const chat = new QodeAssistChatServiceImpl(runtime, configurations, fixture.root);
        chat.setClient(client);
        try {
            const { chatId } = await chat.openSession({ location: 'user' });
            server.enqueue({ kind: 'replay', recording: openAITextRecording('Hi.') });
            await chat.send(chatId, { text: 'what does reverse do?', attachments: [] }, {
                workspacePath: fixture.workspace, agent: 'fake-openai', tools: { ...benchToolSettings(undefined), disabled: ['get_diagnostics'] }
            });
            while (!events.some(event => event.type === 'Finished' || event.type === 'Failed')) {
                await new Promise(resolve => setTimeout(resolve, 5));
            }
            assert.deepEqual(events.filter(event => event.type === 'Failed'), []);
            const fromIde = received();

            server.enqueue({ kind: 'replay', recording: openAITextRecording('Hi.') });
            await bench(['chat', '--agent', 'fake-openai', '--message', 'what does reverse do?', '--tools']);
            assert.deepEqual(received(), fromIde);
            assert.match(JSON.stringify(fromIde), /Workspace: workspace/, 'the environment block is in both');
            assert.match(JSON.stringify(fromIde), /Instructions from the project's AGENTS\.md.*Keep functions pure\./, 'the rules file is in both');
        } finally {
            await chat.saved();
            chat.dispose();
        }
    });

    it('complete: the completion engine\'s context window, cross-file context, environment and instruct prompt', async () => {
        const completion = new QodeAssistCompletionServiceImpl(runtime, configurations);
        try {
            server.enqueue({ kind: 'replay', recording: ollamaChatRecording(['return [...text].reverse().join(\'\');']) });
            const text = importing.replace('<CURSOR>', '');
            const answer = await completion.complete({
                id: 1, workspacePath: fixture.workspace, file: join(fixture.workspace, 'src', 'mirror.ts'), relativePath: 'src/mirror.ts', language: 'typescript',
                text, offset: importing.indexOf('<CURSOR>'),
                settings: { ...DEFAULT_CONTEXT, ...DEFAULT_POSTPROCESS, openFilesBudget: 0, useGitignore: true }
            });
            assert.equal(answer.error, undefined);
            const fromIde = received();

            server.enqueue({ kind: 'replay', recording: ollamaChatRecording(['return [...text].reverse().join(\'\');']) });
            assert.equal(await bench(['complete', '--agent', 'fake-instruct', '--file', 'src/mirror.ts', '--cursor-marker', '<CURSOR>']), answer.text);
            assert.deepEqual(received(), fromIde);
            assert.match(JSON.stringify(fromIde), /Definitions from src\/flip\.ts/, 'the imported definition is in both');
        } finally {
            completion.dispose();
        }
    });

    it('refactor: the refactor layer, the environment and the instruction', async () => {
        const refactor = new QodeAssistRefactorServiceImpl(runtime, configurations, fixture.root);
        refactor.setClient({ onRefactorProgress: () => undefined, requestToolPermission: async () => 'deny', getDiagnostics: async () => [], readOpenDocument: async () => undefined, writeDocument: async () => undefined });
        try {
            const fenced = '```ts\nreturn Array.from(text).reverse().join(\'\');\n```';
            server.enqueue({ kind: 'replay', recording: openAITextRecording(fenced) });
            const start = source.indexOf('<CURSOR>');
            const answer = await refactor.refactor({
                id: 'r1', workspacePath: fixture.workspace, file: join(fixture.workspace, 'src', 'reverse.ts'), relativePath: 'src/reverse.ts', language: 'typescript',
                text: source, selection: { start, end: start + '<CURSOR>'.length }, cursor: start + '<CURSOR>'.length, instruction: 'use Array.from',
                agent: 'fake-openai', tools: false, thinking: false, indent: { insertSpaces: true, tabSize: 4 }, openFilesBudget: 0
            });
            assert.equal(answer.error, undefined);
            const fromIde = received();

            server.enqueue({ kind: 'replay', recording: openAITextRecording(fenced) });
            assert.equal(await bench(['refactor', '--agent', 'fake-openai', '--file', 'src/reverse.ts', '--range', '2:5-2:13', '--instruction', 'use Array.from']), answer.text);
            assert.deepEqual(received(), fromIde);
        } finally {
            refactor.dispose();
        }
    });
});
