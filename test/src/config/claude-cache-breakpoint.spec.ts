import * as assert from 'node:assert/strict';
import { syntheticContext, TemplateContext } from '@qodeassist/core';
import { bundledConfiguration } from './golden-bodies';

describe('claude-chat: the cache breakpoint on the history\'s last block', () => {
    const render = (last: TemplateContext['history'][number]['content'][number]) => {
        const agent = bundledConfiguration().agents.get('claude-chat')!;
        const ctx: TemplateContext = {
            ...syntheticContext(),
            history: [
                { role: 'user', content: [{ type: 'text', text: 'Build it' }] },
                { role: 'assistant', content: [{ type: 'tool_use', id: 'call-1', name: 'build_project', input: {} }] },
                { role: 'user', content: [last] }
            ]
        };
        const body = agent.renderBody(ctx) as { messages: Array<{ content: Array<Record<string, unknown>> }> };
        return body.messages.at(-1)!.content.at(-1);
    };

    it('a failed tool result at the very end keeps is_error beside its cache breakpoint', () => {
        assert.deepEqual(render({ type: 'tool_result', tool_use_id: 'call-1', name: 'build_project', content: 'error: no such target', is_error: true }), {
            type: 'tool_result', tool_use_id: 'call-1', content: 'error: no such target', is_error: true, cache_control: { type: 'ephemeral' }
        });
    });

    it('a successful one at the end gets the breakpoint and no is_error', () => {
        assert.deepEqual(render({ type: 'tool_result', tool_use_id: 'call-1', name: 'build_project', content: 'ok', is_error: false }), {
            type: 'tool_result', tool_use_id: 'call-1', content: 'ok', cache_control: { type: 'ephemeral' }
        });
    });
});
