import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { editIdOf, skillInvocation, sumCosts, titleFromText, todoChecklist } from './index';

describe('the protocol entry the browser loads', () => {
    it('is published as @qodeassist/core/protocol and its compiled code requires nothing', () => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const entry = require('@qodeassist/core/protocol') as typeof import('./index');
        assert.equal(entry.ACP_AGENT_PREFIX, 'acp:');
        const compiled = readFileSync(join(__dirname, 'index.js'), 'utf8');
        assert.doesNotMatch(compiled, /require\(/, 'a browser bundle would pull whatever it requires');
    });

    it('keys a reused tool call id from its second result on', () => {
        assert.equal(editIdOf('call_0', 0), 'call_0');
        assert.equal(editIdOf('call_0', 1), 'call_0#2');
    });

    it('sums costs per currency and has no figure when nothing was priced', () => {
        assert.deepEqual(sumCosts([{ cost: { amount: 0.25, currency: 'USD' } }, {}, { cost: { amount: 0.5, currency: 'USD' } }]),
            { amounts: [{ currency: 'USD', amount: 0.75 }], unpriced: 1 });
        assert.equal(sumCosts([{}]), undefined);
    });

    it('titles a chat from its first message, spaces collapsed and cut at 60 with an ellipsis', () => {
        assert.equal(titleFromText('  fix   the\nbuild  '), 'fix the build');
        assert.equal(titleFromText(' \n '), undefined);
        assert.equal(titleFromText('x'.repeat(80))?.length, 60);
        assert.ok(titleFromText('x'.repeat(80))?.endsWith('…'));
    });

    it('reads /skill invocations and nothing else', () => {
        assert.deepEqual(skillInvocation('/review  the diff '), { name: 'review', rest: 'the diff' });
        assert.deepEqual(skillInvocation('/review'), { name: 'review', rest: '' });
        assert.equal(skillInvocation('review /this'), undefined);
        assert.equal(skillInvocation('/Review'), undefined);
    });

    it('rebuilds the todo checklist from the calls in order, ignoring malformed ones', () => {
        const calls = [
            { name: 'todo', input: { action: 'add', text: 'read' } },
            { name: 'todo', input: { action: 'add', text: 'write' } },
            { name: 'read_file', input: { path: 'a' } },
            { name: 'todo', input: { action: 'complete', id: 1 } },
            { name: 'todo', input: { action: 'complete', id: 9 } },
            { name: 'todo', input: null }
        ];
        assert.equal(todoChecklist(calls), '[x] 1. read\n[ ] 2. write');
    });
});
