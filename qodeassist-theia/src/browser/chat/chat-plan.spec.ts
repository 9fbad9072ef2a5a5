import * as assert from 'node:assert/strict';
import { planOf } from './chat-plan';
import { ChatMessage, MessagePart } from './chat-transcript';

const message = (id: number, role: 'user' | 'assistant', parts: MessagePart[]): ChatMessage =>
    ({ id, role, parts, status: 'done', attachments: [], revision: 0 } as unknown as ChatMessage);
const todo = (callId: string, args: Record<string, unknown>): MessagePart => ({ kind: 'tool', tool: { callId, name: 'todo', arguments: args, status: 'done' } } as MessagePart);

describe('the plan to edit before Act', () => {
    it('is the last answer\'s text and the checklist its todo calls built, ticked where completed', () => {
        const messages = [
            message(1, 'user', [{ kind: 'text', chunks: ['Plan the port change'] }]),
            message(2, 'assistant', [
                todo('t1', { action: 'add', text: 'Find where the port is set' }),
                todo('t2', { action: 'add', text: 'Change it to 9090' }),
                todo('t3', { action: 'complete', id: 1 }),
                { kind: 'text', chunks: ['Plan:\n', '1. Find it\n2. Change it'] }
            ])
        ];
        assert.equal(planOf(messages), 'Plan:\n1. Find it\n2. Change it\n\n[x] 1. Find where the port is set\n[ ] 2. Change it to 9090');
    });

    it('is empty for a chat with no answer yet, and ignores a completion of a step that does not exist', () => {
        assert.equal(planOf([message(1, 'user', [{ kind: 'text', chunks: ['hi'] }])]), '');
        assert.equal(planOf([message(1, 'assistant', [todo('t', { action: 'complete', id: 4 })])]), '');
    });
});
