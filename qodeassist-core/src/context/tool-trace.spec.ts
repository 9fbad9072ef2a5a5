import * as assert from 'node:assert/strict';
import { CtxMessage } from '../prompt/template-context';
import { normalizeToolTrace } from './tool-trace';

const use = (id: string) => ({ type: 'tool_use' as const, id, name: 'read_file', input: { path: id } });
const result = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, name: 'read_file', content: `content of ${id}`, is_error: false });
const text = (value: string) => ({ type: 'text' as const, text: value });
const user = (...content: CtxMessage['content']): CtxMessage => ({ role: 'user', content });
const assistant = (...content: CtxMessage['content']): CtxMessage => ({ role: 'assistant', content });

describe('tool-trace invariants', () => {
    const cases: Array<{ name: string; input: CtxMessage[]; expected: CtxMessage[]; repairs: Record<string, number> }> = [
        {
            name: 'a normal run needs no repair',
            input: [user(text('go')), assistant(text('reading'), use('a'), use('b')), user(result('a'), result('b'), text('<working_set>…</working_set>')), assistant(text('done'))],
            expected: [user(text('go')), assistant(text('reading'), use('a'), use('b')), user(result('a'), result('b'), text('<working_set>…</working_set>')), assistant(text('done'))],
            repairs: {}
        },
        {
            name: 'a call without a result is dropped',
            input: [user(text('go')), assistant(text('reading'), use('a'), use('b')), user(result('a'))],
            expected: [user(text('go')), assistant(text('reading'), use('a')), user(result('a'))],
            repairs: { orphaned_tool_use: 1 }
        },
        {
            name: 'results come back in call order',
            input: [user(text('go')), assistant(use('a'), use('b')), user(result('b'), result('a'))],
            expected: [user(text('go')), assistant(use('a'), use('b')), user(result('a'), result('b'))],
            repairs: { result_out_of_order: 1 }
        },
        {
            name: 'a result for a call that is not right before it is dropped, and the text around it kept',
            input: [user(text('go')), assistant(text('hi')), user(result('x'), text('more'))],
            expected: [user(text('go')), assistant(text('hi')), user(text('more'))],
            repairs: { orphaned_tool_result: 1 }
        },
        {
            name: 'duplicates go',
            input: [user(text('go')), assistant(use('a'), use('a')), user(result('a'), result('a'))],
            expected: [user(text('go')), assistant(use('a')), user(result('a'))],
            repairs: { duplicate_tool_use: 1, duplicate_tool_result: 1 }
        },
        {
            name: 'an assistant message left empty goes, and the roles stay alternating',
            input: [user(text('go')), assistant(use('a')), user(text('never mind'))],
            expected: [user(text('go'), text('never mind'))],
            repairs: { orphaned_tool_use: 1 }
        }
    ];
    for (const entry of cases) {
        it(entry.name, () => {
            const frozen = structuredClone(entry.input);
            const { messages, repairs } = normalizeToolTrace(entry.input);
            assert.deepEqual(messages, entry.expected);
            assert.deepEqual(repairs, entry.repairs);
            assert.deepEqual(entry.input, frozen, 'the input is never changed');
        });
    }
});
