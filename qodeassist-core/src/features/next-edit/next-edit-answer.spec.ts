import * as assert from 'node:assert/strict';
import { QodeAssistError } from '../../wire/error-info';
import { AnswerFormat, rewrittenRegion } from './next-edit-answer';

describe('rewrittenRegion', () => {
    const region = 'const a = 1;\nconst b = a;';
    const cases: Array<{ name: string; answer: string; format: AnswerFormat; expect: string }> = [
        {
            name: 'Zeta: the text between the region markers, cursor marker and the markers\' own line breaks dropped',
            answer: '```a.ts\n<|editable_region_start|>\nconst x = 1;<|user_cursor_is_here|>\nconst b = x;\n<|editable_region_end|>\n```',
            format: 'region-markers', expect: 'const x = 1;\nconst b = x;'
        },
        {
            name: 'Zeta: a region rewritten to nothing is an empty rewrite',
            answer: '<|editable_region_start|>\n<|editable_region_end|>', format: 'region-markers', expect: ''
        },
        {
            name: 'instruct: the first fenced block, whatever prose is around it',
            answer: 'Here is the edit:\n```ts\nconst x = 1;\nconst b = x;\n```\nDone.', format: 'fenced', expect: 'const x = 1;\nconst b = x;'
        },
        {
            name: 'instruct: a thinking block before the fence is not the answer',
            answer: '<think>```\nnot this\n```</think>\n```\nconst a = 2;\n```', format: 'fenced', expect: 'const a = 2;'
        },
        {
            name: 'instruct: an answer that used Zeta\'s markers is read by them',
            answer: '<|editable_region_start|>\nconst a = 3;\n<|editable_region_end|>', format: 'fenced', expect: 'const a = 3;'
        }
    ];
    for (const { name, answer, format, expect } of cases) {
        it(name, () => assert.equal(rewrittenRegion(answer, format, region), expect));
    }

    const hostile: Array<{ name: string; answer: string; format: AnswerFormat; message: RegExp }> = [
        { name: 'Zeta without a start marker', answer: 'const a = 1;', format: 'region-markers', message: /no <\|editable_region_start\|>.*Zeta's format/ },
        { name: 'Zeta cut off before the end marker', answer: '<|editable_region_start|>\nconst a = 1;', format: 'region-markers', message: /no <\|editable_region_end\|>/ },
        { name: 'instruct without a fenced block', answer: 'I would rename a to x.', format: 'fenced', message: /no fenced code block/ },
        { name: 'instruct with an unclosed block', answer: '```\nconst a = 1;', format: 'fenced', message: /not closed.*cut off/ },
        { name: 'a region far larger than the original', answer: `\`\`\`\n${'x'.repeat(3 * region.length + 2001)}\n\`\`\``, format: 'fenced', message: /more than \d+ .*not an edit of it/ }
    ];
    for (const { name, answer, format, message } of hostile) {
        it(`refuses ${name} with a Provider error saying why`, () => {
            assert.throws(() => rewrittenRegion(answer, format, region), (error: unknown) =>
                error instanceof QodeAssistError && error.info.category === 'Provider' && message.test(error.info.message));
        });
    }
});
