import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { HistoryMessage } from '../context/conversation-history';
import { redactKnownValues } from '../wire/redaction';
import { toolCallView } from './tool-call-view';

/**
 * A saved chat as the `session/update`s that show it again (`session/load`): the user's messages
 * (attachments named, a skill as its `/name`), the answers' text and thinking, and each tool call
 * with its result. Ids are numbered per replay, so a provider's reused call ids stay distinct.
 */
export function replayHistory(history: readonly HistoryMessage[], cwd: string): SessionUpdate[] {
    const updates: SessionUpdate[] = [];
    const ids = new Map<string, string>();
    let calls = 0;
    const say = (sessionUpdate: 'user_message_chunk' | 'agent_message_chunk' | 'agent_thought_chunk', text: string) => {
        if (text) {
            updates.push({ sessionUpdate, content: { type: 'text', text: redactKnownValues(text) } });
        }
    };
    for (const message of history) {
        for (const block of message.blocks) {
            switch (block.type) {
                case 'text':
                    say(message.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk', block.text);
                    break;
                case 'thinking':
                    say('agent_thought_chunk', block.text);
                    break;
                case 'image':
                case 'attachment':
                    say('user_message_chunk', `[attached ${block.ref.name}]\n`);
                    break;
                case 'skill_invocation':
                    say('user_message_chunk', `/${block.name}`);
                    break;
                case 'tool_use': {
                    const toolCallId = `${block.id || 'call'}@${++calls}`;
                    ids.set(block.id, toolCallId);
                    updates.push({ sessionUpdate: 'tool_call', toolCallId, ...toolCallView(block.name, block.input, cwd), status: 'pending', rawInput: block.input });
                    break;
                }
                case 'tool_result': {
                    const toolCallId = ids.get(block.toolUseId);
                    if (toolCallId) {
                        ids.delete(block.toolUseId);
                        updates.push({
                            sessionUpdate: 'tool_call_update', toolCallId, status: block.isError ? 'failed' : 'completed',
                            content: [{ type: 'content', content: { type: 'text', text: redactKnownValues(block.content) } }]
                        });
                    }
                    break;
                }
                default:
                    break;
            }
        }
        if (message.role === 'assistant' && message.ended) {
            say('agent_message_chunk', message.ended.reason === 'cancelled' ? '\n\n[stopped]' : `\n\n[failed: ${message.ended.error.message}]`);
        }
    }
    // A call whose result was never saved (the answer was stopped) did not complete.
    for (const toolCallId of ids.values()) {
        updates.push({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' });
    }
    return updates;
}
