import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ChatFeature, ChatTurnOptions, PermissionRequest } from '@qodeassist/core';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { ChatWindow, useChatHarness } from './chat-harness';

/** Plan mode over the fake provider: what the model is offered, what runs, and what Act carries. */
describe('plan mode and Act in the chat', () => {
    const chat = useChatHarness({
        homePrefix: 'qodeassist-plan-',
        prepare: fixture => fixture.write(join(fixture.workspace, 'src', 'app.ts'), 'export const port = 8080;\n')
    });
    const { server, fixture, storage } = chat;
    let window: ChatWindow;
    let feature: ChatFeature;
    let asked: PermissionRequest[];

    beforeEach(() => {
        window = chat.openWindow({ permission: 'allow-once' });
        ({ feature, asked } = window);
    });

    /** Sends in the workspace and waits for the answer, which must finish. */
    async function send(chatId: string, text: string, options: ChatTurnOptions): Promise<void> {
        assert.equal((await window.turn(chatId, text, { workspacePath: fixture.workspace, ...options })).type, 'Finished');
    }
    const body = (index: number) => JSON.parse(server.requests[index].body) as { messages: Array<{ role: string; content: unknown }>; tools?: Array<{ function: { name: string } }> };
    const toolNames = (index: number) => (body(index).tools ?? []).map(tool => tool.function.name).sort();

    it('plan mode offers read tools only, refuses a write without running it, and Act brings the tools back with the plan and its checklist pinned', async () => {
        const { chatId } = await feature.open(storage);
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 't1', name: 'todo', arguments: { action: 'add', text: 'Change the port to 9090' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'w1', name: 'create_file', arguments: { path: 'sneaky.txt', content: 'written in plan mode' } }]) },
            { kind: 'replay', recording: openAITextRecording('Plan:\n1. Change the port to 9090 in src/app.ts') }
        );
        await send(chatId, 'Plan the port change', { mode: 'plan' });

        const offered = toolNames(0);
        assert.ok(offered.includes('read_file') && offered.includes('todo'), offered.join(', '));
        for (const tool of ['create_file', 'edit_file', 'execute_terminal_command']) {
            assert.ok(!offered.includes(tool), `${tool} is offered in plan mode`);
        }
        assert.match(JSON.stringify(body(0).messages[0]), /You are in plan mode/);
        assert.ok(!existsSync(join(fixture.workspace, 'sneaky.txt')), 'the write did not run');
        assert.deepEqual(asked, [], 'nothing was even asked');
        const refusal = body(2).messages.find(message => message.role === 'tool' && JSON.stringify(message.content).includes('not available in plan mode'));
        assert.ok(refusal, 'the model was told the write is not available in plan mode');

        server.enqueue({ kind: 'replay', recording: openAITextRecording('On it.') });
        await send(chatId, 'Go ahead', { mode: 'act' });
        const act = server.requests.length - 1;
        assert.ok(toolNames(act).includes('edit_file') && toolNames(act).includes('create_file'), toolNames(act).join(', '));
        const sent = JSON.stringify(body(act).messages);
        assert.ok(!sent.includes('You are in plan mode'));
        assert.match(sent, /The plan agreed in plan mode.*Change the port to 9090 in src\/app\.ts.*Checklist now:\\n\[ \] 1\. Change the port to 9090/);
    });

    it('the plan as the user edited it is pinned instead of the answer', async () => {
        const { chatId } = await feature.open(storage);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Plan: 1. rewrite everything') });
        await send(chatId, 'Plan it', { mode: 'plan' });
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Ok.') });
        await send(chatId, 'Do it', { plan: '1. Only change the port' });
        const sent = JSON.stringify(body(1).messages);
        assert.match(sent, /The plan agreed in plan mode.*1\. Only change the port/);
        assert.ok(!/The plan agreed[^"]*rewrite everything/.test(sent), 'the edited plan replaces the answer in the pin');
    });
});
