import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ChatEvent, ChatFeature, HistoryMessage } from '@qodeassist/core';
import { AgentScript } from '../acp/scripted-acp-agent';
import { SCRIPTED_AGENT } from '../acp/acp-test-host';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { isTerminal, until, useChatHarness } from './chat-harness';

/** A hash of every file under the workspace's `src` (the part the turns change), by path. */
function hashes(root: string): Record<string, string> {
    const found: Record<string, string> = {};
    const walk = (folder: string) => {
        for (const name of readdirSync(folder)) {
            const path = join(folder, name);
            if (lstatSync(path).isDirectory()) {
                walk(path);
            } else {
                found[relative(root, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
            }
        }
    };
    walk(root);
    return found;
}

/**
 * Checkpoints around real chat turns: QodeAssist's own agent writing through its tools and a
 * shell command, an external agent writing the disk itself; restored (files, chat, both) and undone.
 */
describe('chat checkpoints around turns', function () {
    this.timeout(60_000);
    const chat = useChatHarness({
        homePrefix: 'qodeassist-chat-checkpoints-', server: { hangMs: 15_000 },
        prepare: fixture => {
            const args = [SCRIPTED_AGENT, JSON.stringify(externalScript())];
            fixture.user_('acp/scripted.toml', ['description = "A scripted agent for tests"', `command = ${JSON.stringify(process.execPath)}`,
                `args = [${args.map(arg => JSON.stringify(arg)).join(', ')}]`].join('\n'));
        }
    });
    const { server, fixture, storage } = chat;
    const src = join(fixture.workspace, 'src');
    let feature: ChatFeature;
    let events: ChatEvent[];
    let notices: string[];

    beforeEach(() => {
        rmSync(src, { recursive: true, force: true });
        mkdirSync(src, { recursive: true });
        writeFileSync(join(src, 'app.ts'), 'export const greeting = "hello";\n');
        writeFileSync(join(src, 'old.ts'), 'removed later\n');
        ({ feature, events, notices } = chat.openWindow({ checkpoints: true, permission: 'allow-once' }));
    });

    /** The external agent's one turn: it says it works, sleeps while "it writes the disk itself" (the spec does), and ends. */
    function externalScript(): AgentScript {
        return { turns: [[{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Working.' } } }, { sleep: 1500 }]] };
    }
    const options = { workspacePath: fixture.workspace, tools: { allowedCommands: ['sh'], disabled: [], commandTimeoutSeconds: 30, commandOutputLimit: 10_000, buildCommand: '', allowOutsideWorkspace: false, useGitignore: true } };
    const ends = () => events.filter(isTerminal).length;
    /** Turns here run a shell command and an external agent: a longer wait than the harness's. */
    const waitFor = (condition: () => boolean, what: string) => until(condition, what, 30_000);
    const texts = (history: readonly HistoryMessage[]) => history.filter(message => message.role === 'user' && message.blocks.some(block => block.type === 'text'))
        .map(message => message.blocks.map(block => block.type === 'text' ? block.text : '').join(''));

    /** One turn of QodeAssist's own agent: create, edit, a shell command writing a file, then a text answer. */
    async function agentTurn(chatId: string): Promise<void> {
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'c1', name: 'create_file', arguments: { path: 'src/nested/new.ts', content: 'created\n' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'e1', name: 'edit_file', arguments: { path: 'src/app.ts', old_text: 'hello', new_text: 'hello, world' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 't1', name: 'execute_terminal_command', arguments: { command: 'sh -c \'echo x > src/made-by-command.txt && rm src/old.ts\'' } }]) },
            { kind: 'replay', recording: openAITextRecording('Done.') }
        );
        const before = ends();
        await feature.send(chatId, { text: 'change things', attachments: [] }, options);
        await waitFor(() => ends() > before, 'the answer');
        await feature.saved();
    }

    it('restores files and chat to before a turn of its own agent (tool writes and a shell command), and the undo brings both back', async () => {
        const { chatId } = await feature.open(storage);
        const before = hashes(src);
        await agentTurn(chatId);
        const after = hashes(src);
        assert.equal(readFileSync(join(src, 'made-by-command.txt'), 'utf8'), 'x\n', JSON.stringify(events.filter(event => event.type === 'ToolResult')));
        assert.deepEqual(await feature.rewind!.turns(fixture.workspace, chatId), [0]);

        const preview = await feature.rewind!.preview(fixture.workspace, chatId, 0);
        assert.deepEqual(preview.files.map(file => `${file.kind} ${file.path}`).sort(),
            ['added src/old.ts', 'deleted src/made-by-command.txt', 'deleted src/nested/new.ts', 'modified src/app.ts']);
        const restored = await feature.rewind!.restore(fixture.workspace, chatId, 0, 'both');

        assert.deepEqual(hashes(src), before);
        assert.equal(existsSync(join(src, 'nested')), false);
        assert.deepEqual(texts(feature.history(chatId)), []);

        await feature.rewind!.undo(fixture.workspace, chatId, restored);
        assert.deepEqual(hashes(src), after);
        assert.deepEqual(texts(feature.history(chatId)), ['change things']);
        assert.deepEqual(notices, []);
    });

    it('restores the files only, the chat only, and reviews the changes with Keep and Revert', async () => {
        const { chatId } = await feature.open(storage);
        const before = hashes(src);
        await agentTurn(chatId);

        const chatOnly = await feature.rewind!.restore(fixture.workspace, chatId, 0, 'chat');
        assert.deepEqual(texts(feature.history(chatId)), []);
        assert.equal(readFileSync(join(src, 'made-by-command.txt'), 'utf8'), 'x\n', 'the files stay');
        await feature.rewind!.undo(fixture.workspace, chatId, chatOnly);

        const review = await feature.rewind!.changes(fixture.workspace, chatId);
        assert.deepEqual(review.files.map(file => file.path).sort(), ['src/app.ts', 'src/made-by-command.txt', 'src/nested/new.ts', 'src/old.ts']);
        assert.match(review.files.find(file => file.path === 'src/app.ts')!.diff, /-export const greeting = "hello";\n\+export const greeting = "hello, world";/);
        await feature.rewind!.keep(fixture.workspace, chatId, 'src/nested/new.ts');
        await feature.rewind!.revert(fixture.workspace, chatId, 0, 'src/app.ts');
        assert.equal(readFileSync(join(src, 'app.ts'), 'utf8'), 'export const greeting = "hello";\n');
        assert.deepEqual((await feature.rewind!.changes(fixture.workspace, chatId)).files.map(file => file.path).sort(), ['src/made-by-command.txt', 'src/old.ts']);

        await feature.rewind!.restore(fixture.workspace, chatId, 0, 'files');
        assert.deepEqual(hashes(src), before);
        assert.deepEqual(texts(feature.history(chatId)), ['change things'], 'the chat stays');
    });

    it('takes no checkpoint for a turn whose agent is offered no tools', async () => {
        const { chatId } = await feature.open(storage);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Just talk.') });
        await feature.send(chatId, { text: 'hi', attachments: [] }, { ...options, offerTools: false });
        await waitFor(() => ends() > 0, 'the answer');

        assert.deepEqual(await feature.rewind!.turns(fixture.workspace, chatId), []);
        await assert.rejects(feature.rewind!.preview(fixture.workspace, chatId, 0), /no checkpoint before message 1/);
    });

    it('shows what an external agent wrote on disk by itself during its turn, and restores it', async () => {
        const { chatId } = await feature.open(storage);
        const before = hashes(src);
        await feature.send(chatId, { text: 'do it yourself', attachments: [] }, { agent: 'acp:scripted', workspacePath: fixture.workspace });
        await waitFor(() => events.some(event => event.type === 'TextDelta'), 'the agent at work');
        // The agent writes the disk itself (as codex-acp does), never through the IDE.
        writeFileSync(join(src, 'by-agent.ts'), 'the agent wrote this\n');
        writeFileSync(join(src, 'app.ts'), 'rewritten by the agent\n');
        await waitFor(() => events.some(event => event.type === 'WorkspaceChanges'), 'the changes on disk');

        const told = events.find(event => event.type === 'WorkspaceChanges');
        assert.ok(told?.type === 'WorkspaceChanges');
        assert.deepEqual(told.files.map(file => `${file.kind} ${file.path}`).sort(), ['added src/by-agent.ts', 'modified src/app.ts']);
        assert.match(told.files.find(file => file.path === 'src/by-agent.ts')!.diff, /\+the agent wrote this/);
        assert.equal(told.turn, 0);

        await feature.rewind!.revert(fixture.workspace, chatId, 0, 'src/by-agent.ts');
        assert.equal(existsSync(join(src, 'by-agent.ts')), false);
        await feature.rewind!.restore(fixture.workspace, chatId, 0, 'files');
        assert.deepEqual(hashes(src), before);
    });
});
