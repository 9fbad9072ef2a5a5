import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { EnvironmentSecretsStore, PermissionRequest, QodeAssistRuntime } from '@qodeassist/core';
import { FAKE_KEYS, ollamaChatRecording, openAITextStreamRecording, openAIToolCallsRecording, useFakeProviderSuite } from '@qodeassist/test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QodeAssistRefactorClient, RefactorProgress, RefactorQuery } from '../common/refactor-protocol';
import { QodeAssistRefactorServiceImpl } from './refactor-service-impl';

describe('QodeAssistRefactorServiceImpl', () => {
    const { server, fixture, configurations } = useFakeProviderSuite({
        prepare: fixture => {
            fixture.project_('agents/rosters.toml', 'schema_version = 1\n[chat]\nagents = ["fake-openai"]\n[refactor]\nagents = ["fake-openai"]\n');
            fixture.write(join(fixture.workspace, '.qodeassistignore'), 'secret/\n');
            fixture.write(join(fixture.workspace, 'notes.txt'), 'draft\n');
        }
    });
    const progress: Array<{ id: string; progress: RefactorProgress }> = [];
    const asked: PermissionRequest[] = [];
    const answers: Array<'allow-once' | 'deny'> = [];
    const client: QodeAssistRefactorClient = {
        onRefactorProgress: (id, items) => progress.push(...items.map(item => ({ id, progress: item }))),
        requestToolPermission: async (_id, request) => {
            asked.push(request);
            return answers.shift() ?? 'deny';
        },
        getDiagnostics: async () => [],
        readOpenDocument: async () => undefined,
        writeDocument: async (path, content) => writeFileSync(path, content)
    };
    let service: QodeAssistRefactorServiceImpl;
    let home: string;
    let nextId = 1;

    const file = 'export function total(items: number[]): number {\n    let sum = 0;\n    for (const item of items) {\n        sum += item;\n    }\n    return sum;\n}\n';
    const selected = '    let sum = 0;\n    for (const item of items) {\n        sum += item;\n    }\n';
    const query = (overrides: Partial<RefactorQuery> = {}): RefactorQuery => ({
        id: `r${nextId++}`, workspacePath: fixture.workspace, file: join(fixture.workspace, 'src', 'total.ts'), relativePath: 'src/total.ts', language: 'typescript',
        text: file, selection: { start: file.indexOf(selected), end: file.indexOf(selected) + selected.length }, cursor: file.indexOf(selected),
        instruction: 'use reduce', tools: false, thinking: false, indent: { insertSpaces: true, tabSize: 4 }, openFilesBudget: 0,
        ...overrides
    });
    const lastBody = () => JSON.parse(server.requests.at(-1)!.body) as { messages: Array<{ role: string; content: unknown }> };

    beforeEach(() => {
        progress.length = 0;
        asked.length = 0;
        home = mkdtempSync(join(tmpdir(), 'qodeassist-home-'));
        service = new QodeAssistRefactorServiceImpl(new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS) }), configurations, home);
        service.setClient(client);
    });
    afterEach(() => {
        service.dispose();
        rmSync(home, { recursive: true, force: true });
    });

    it('sends the marked selection in the refactor layer and the instruction as the user message; streams a cleaned proposal; answers the clean replacement', async () => {
        // Records further apart than the 32 ms proposal throttle: each one's proposal is sent.
        server.enqueue({ kind: 'replay', recording: openAITextStreamRecording(['Here you go:\n```ts\nconst sum = items', '.reduce((a, b) => a + b, 0);\n', '```\nDone.']), chunkDelayMs: 80 });
        const q = query();
        const answer = await service.refactor(q);
        assert.deepEqual(answer, { text: '    const sum = items.reduce((a, b) => a + b, 0);\n', agent: 'fake-openai' });
        const body = lastBody();
        assert.deepEqual(body.messages.at(-1), { role: 'user', content: [{ type: 'text', text: 'use reduce' }] });
        assert.match(String(body.messages[0].content), /Active file: src\/total\.ts \(typescript\)/);
        assert.match(String(body.messages[0].content), /\{\n<selection_start> {4}let sum = 0;[\s\S]*sum \+= item;\n {4}\}\n<selection_end> {4}return sum;/);
        const proposals = progress.filter(entry => entry.progress.kind === 'proposal').map(entry => (entry.progress as { text: string }).text);
        assert.ok(proposals.length >= 2, 'the proposal grows as the answer streams');
        assert.ok(proposals.includes('    const sum = items\n'), proposals.join(' | '));
        assert.ok(progress.every(entry => entry.id === q.id));
        assert.equal(progress[0].progress.kind, 'started');
    });

    it('the thinking toggle and the agent override reach the request', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaChatRecording(['```ts\nx\n```']) });
        const answer = await service.refactor(query({ agent: 'fake-ollama', thinking: true }));
        assert.equal(answer.error, undefined);
        assert.equal(answer.agent, 'fake-ollama');
        assert.equal(server.requests.at(-1)!.path, '/api/chat');
        assert.equal(JSON.parse(server.requests.at(-1)!.body).think, true);
        server.enqueue({ kind: 'replay', recording: ollamaChatRecording(['```ts\nx\n```']) });
        await service.refactor(query({ agent: 'fake-ollama', thinking: false }));
        assert.equal(JSON.parse(server.requests.at(-1)!.body).think, false);
    });

    it('tools go through the permission gate: a denied write changes nothing, an allowed one writes', async () => {
        const edit = { path: 'notes.txt', old_text: 'draft', new_text: 'final' };
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'e1', name: 'edit_file', arguments: edit }]) },
            { kind: 'replay', recording: openAITextStreamRecording(['```ts\n    let sum = 0;\n```']) }
        );
        answers.push('deny');
        const denied = await service.refactor(query({ tools: true }));
        assert.equal(denied.error, undefined);
        assert.equal(asked.length, 1);
        assert.equal(asked[0].tool, 'edit_file');
        assert.equal(readFileSync(join(fixture.workspace, 'notes.txt'), 'utf8'), 'draft\n');
        assert.ok(lastBody().messages.some(message => message.role === 'tool' && /denied/i.test(JSON.stringify(message.content))), 'the model hears it was denied');
        assert.ok(progress.some(entry => entry.progress.kind === 'tool' && entry.progress.name === 'edit_file' && entry.progress.state === 'running'));

        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'e2', name: 'edit_file', arguments: edit }]) },
            { kind: 'replay', recording: openAITextStreamRecording(['```ts\n    let sum = 0;\n```']) }
        );
        answers.push('allow-once');
        await service.refactor(query({ tools: true }));
        assert.equal(readFileSync(join(fixture.workspace, 'notes.txt'), 'utf8'), 'final\n');
        server.reset();
        await service.refactor(query({ tools: false }));
        assert.equal(JSON.parse(server.requests[0].body).tools, undefined, 'no tools are offered when the toggle is off');
    });

    it('open editors in the workspace join the prompt within the budget; ignored, outside and the file itself do not', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextStreamRecording(['```ts\nx\n```']) });
        await service.refactor(query({
            openFilesBudget: 1_000,
            openFiles: [
                { path: join(fixture.workspace, 'src', 'util.ts'), content: 'export const UTIL_MARKER = 1;\n' },
                { path: join(fixture.workspace, 'secret', 'key.ts'), content: 'IGNORED_MARKER\n' },
                { path: '/etc/hostname', content: 'OUTSIDE_MARKER\n' },
                { path: join(fixture.workspace, 'src', 'total.ts'), content: 'SELF_MARKER\n' }
            ]
        }));
        const system = String(lastBody().messages[0].content);
        assert.match(system, /Open file src\/util\.ts:\n```\nexport const UTIL_MARKER = 1;/);
        assert.doesNotMatch(system, /IGNORED_MARKER|OUTSIDE_MARKER|SELF_MARKER/);
    });

    it('cancel aborts the HTTP request and answers cancelled; errors and empty instructions come back as data', async () => {
        server.enqueue({ kind: 'replay', recording: openAITextStreamRecording(['```ts\n', 'slow']), chunkDelayMs: 2_000 });
        const q = query();
        const pending = service.refactor(q);
        while (server.requests.length < 1) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        await service.cancel(q.id);
        assert.deepEqual(await pending, { cancelled: true });
        assert.equal(await server.requests[0].ended, 'aborted-by-client');

        server.enqueue({ kind: 'status', status: 401, body: 'bad key' });
        const auth = (await service.refactor(query())).error;
        assert.equal(auth?.category, 'Auth');
        assert.match(auth?.message ?? '', /key of provider "fake-openai-provider" is read from the environment variable \w+/);
        assert.equal(auth?.provider, 'fake-openai-provider', 'the error names the provider whose key to set');
        server.enqueue({ kind: 'replay', recording: openAITextStreamRecording(['I cannot help with that.']) });
        const noCode = await service.refactor(query());
        assert.equal(noCode.error?.category, 'Provider');
        const empty = await service.refactor(query({ instruction: '  ' }));
        assert.match(empty.error?.message ?? '', /instruction is empty/);
        const unknown = await service.refactor(query({ agent: 'nope' }));
        assert.match(unknown.error?.message ?? '', /no agent named "nope"/);
    });

    it('keeps the instructions library: user and project, shadowing by name', async () => {
        const saved = await service.saveInstruction(fixture.workspace, { name: 'Add types', body: 'Add type annotations.' }, 'user');
        assert.equal(saved.file, join(home, '.qodeassist', 'instructions', 'add-types.json'));
        await service.saveInstruction(fixture.workspace, { name: 'add types', body: 'Project flavour.' }, 'project');
        const listed = await service.listInstructions(fixture.workspace);
        assert.deepEqual(listed.instructions.map(i => [i.name, i.scope, i.body]), [['add types', 'project', 'Project flavour.']]);
        const copy = await service.duplicateInstruction(fixture.workspace, saved.id, 'user');
        await service.deleteInstruction(fixture.workspace, saved.id, 'user');
        assert.deepEqual((await service.listInstructions(fixture.workspace)).instructions.map(i => i.name), ['add types', 'Add types (copy)']);
        await service.deleteInstruction(fixture.workspace, copy.id, 'user');
        const agents = await service.listAgents(fixture.workspace);
        assert.deepEqual([agents[0].name, agents[0].inRoster], ['fake-openai', true]);
    });
});
