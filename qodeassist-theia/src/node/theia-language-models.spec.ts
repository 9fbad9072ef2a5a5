import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { LanguageModelMessage } from '@theia/ai-core/lib/common';
import { languageModelId, toConversation } from './theia-language-models';

describe('QodeAssist agents as Theia language models: Theia\'s messages as a QodeAssist conversation', () => {
    it('takes system texts as the system layer, groups turns by role, keeps tool rounds, and sends the last user message', () => {
        const messages: LanguageModelMessage[] = [
            { actor: 'system', type: 'text', text: 'You are Asker.' },
            { actor: 'user', type: 'text', text: 'Read notes.txt' },
            { actor: 'ai', type: 'text', text: 'Reading.' },
            { actor: 'ai', type: 'tool_use', id: 'c1', name: 'read', input: { path: 'notes.txt' } },
            { actor: 'user', type: 'tool_result', tool_use_id: 'c1', name: 'read', content: { content: [{ type: 'text', text: 'hello' }] } },
            { actor: 'ai', type: 'text', text: 'It says hello.' },
            { actor: 'system', type: 'text', text: 'Be brief.' },
            { actor: 'user', type: 'text', text: 'And now?' }
        ];
        const { system, history, prompt } = toConversation(messages);
        assert.equal(system, 'You are Asker.\n\nBe brief.');
        assert.deepEqual(history.map(message => [message.role, message.blocks.map(block => block.type)]), [
            ['user', ['text']], ['assistant', ['text', 'tool_use']], ['user', ['tool_result']], ['assistant', ['text']]
        ]);
        assert.deepEqual(history[2].blocks[0], { type: 'tool_result', toolUseId: 'c1', name: 'read', content: 'hello', isError: false });
        assert.deepEqual(prompt, [{ type: 'text', text: 'And now?' }]);
    });

    it('sends nothing new when the conversation ends with the assistant, and names models by agent', () => {
        const { history, prompt } = toConversation([{ actor: 'user', type: 'text', text: 'hi' }, { actor: 'ai', type: 'text', text: 'hello' }]);
        assert.equal(history.length, 2);
        assert.deepEqual(prompt, []);
        assert.equal(languageModelId('claude-chat'), 'qodeassist/claude-chat');
    });
});
