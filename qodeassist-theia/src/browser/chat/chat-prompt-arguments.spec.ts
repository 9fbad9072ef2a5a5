import * as assert from 'node:assert/strict';
import {
    draftAfterPrompt, knownValues, missingArgument, moveField, openForm, PromptCommandError, PromptOffer, typedPrompt, withValue
} from './chat-prompt-arguments';

const REVIEW: PromptOffer = {
    kind: 'prompt', server: 'git', name: 'review', label: 'Review a change',
    arguments: [{ name: 'ref', required: true, description: 'The commit' }, { name: 'focus', required: false }, { name: 'style', required: true }]
};

describe('MCP prompt arguments typed after the command', () => {
    it('reads name=value words, a quoted value and a quoted whole word, and keeps what follows them', () => {
        assert.deepEqual(typedPrompt('/mcp.git.review ref=HEAD~1 focus="the tests" "style=short and kind" please be brief'), {
            command: 'mcp.git.review', values: { ref: 'HEAD~1', focus: 'the tests', style: 'short and kind' }, rest: 'please be brief'
        });
    });

    it('a quote inside quotes is written \\" ; a newline ends the arguments', () => {
        assert.deepEqual(typedPrompt('/mcp.git.review focus="say \\"hi\\""\nref=kept as text'), {
            command: 'mcp.git.review', values: { focus: 'say "hi"' }, rest: 'ref=kept as text'
        });
    });

    it('an argument named __proto__ is a name like any other: typed, it is named as unknown; a server\'s own, it is asked for', () => {
        const typed = typedPrompt('/mcp.git.review __proto__=x ref=HEAD')!;
        assert.deepEqual(Object.keys(typed.values), ['__proto__', 'ref']);
        assert.throws(() => knownValues(REVIEW, typed.command, typed.values), /has no argument "__proto__"/);
        const odd: PromptOffer = { ...REVIEW, arguments: [{ name: '__proto__', required: true }] };
        assert.equal(missingArgument(odd, 'mcp.git.odd', {}), '"__proto__" is required by /mcp.git.odd: fill it in, or press Escape to cancel.');
    });

    it('a command alone has no values and no rest; a draft that is not an MCP command is not one', () => {
        assert.deepEqual(typedPrompt('/mcp.git.review '), { command: 'mcp.git.review', values: {}, rest: '' });
        assert.equal(typedPrompt('/review ref=HEAD'), undefined);
        assert.equal(typedPrompt('please run /mcp.git.review'), undefined);
    });

    it('an unclosed quote is an error that says how to close it', () => {
        assert.throws(() => typedPrompt('/mcp.git.review focus="the tests'), (error: Error) =>
            error instanceof PromptCommandError && /is not closed; close it with "/.test(error.message));
    });

    it('an argument the prompt does not take is an error naming the ones it takes', () => {
        assert.throws(() => knownValues(REVIEW, 'mcp.git.review', { ref: 'x', colour: 'red' }),
            { message: '/mcp.git.review has no argument "colour"; it takes ref, focus, style.' });
        assert.deepEqual(knownValues(REVIEW, 'mcp.git.review', { ref: 'x' }), { ref: 'x' });
    });
});

describe('MCP prompt argument form', () => {
    it('names the first required argument left empty (blank counts as empty)', () => {
        assert.equal(missingArgument(REVIEW, 'mcp.git.review', { ref: '  ', style: 'x' }), '"ref" is required by /mcp.git.review: fill it in, or press Escape to cancel.');
        assert.equal(missingArgument(REVIEW, 'mcp.git.review', { ref: 'HEAD' }), '"style" is required by /mcp.git.review: fill it in, or press Escape to cancel.');
        assert.equal(missingArgument(REVIEW, 'mcp.git.review', { ref: 'HEAD', style: 'x' }), undefined);
    });

    it('opens on the first field, or on the first missing required one with its problem when values were typed', () => {
        assert.deepEqual(openForm(REVIEW, 'mcp.git.review'), { offer: REVIEW, command: 'mcp.git.review', values: {}, field: 0 });
        const typed = openForm(REVIEW, 'mcp.git.review', { ref: 'HEAD' });
        assert.equal(typed.field, 2);
        assert.equal(typed.problem, '"style" is required by /mcp.git.review: fill it in, or press Escape to cancel.');
    });

    it('Tab and Shift+Tab go around the fields', () => {
        let form = openForm(REVIEW, 'mcp.git.review');
        const fields: number[] = [];
        for (let step = 0; step < 3; step++) {
            form = moveField(form, 1);
            fields.push(form.field);
        }
        assert.deepEqual(fields, [1, 2, 0]);
        assert.equal(moveField(form, -1).field, 2);
    });

    it('filling the missing argument clears the problem; filling another keeps it', () => {
        const form = openForm(REVIEW, 'mcp.git.review', { ref: 'HEAD' });
        assert.ok(withValue(form, 'focus', 'tests').problem);
        const settled = withValue(form, 'style', 'short');
        assert.equal(settled.problem, undefined);
        assert.deepEqual(settled.values, { ref: 'HEAD', style: 'short' });
        assert.equal(settled.field, 2);
    });

    it('the prompt\'s text replaces the command; the user\'s own words follow it', () => {
        assert.equal(draftAfterPrompt('Review HEAD', ''), 'Review HEAD');
        assert.equal(draftAfterPrompt('Review HEAD', 'be brief'), 'Review HEAD\n\nbe brief');
    });
});
