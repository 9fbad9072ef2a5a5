import * as assert from 'node:assert/strict';
import { describeContext, identifiersNear } from './completion-context-facts';

const document = (...lines: string[]) => ({ getLineContent: (lineNumber: number) => lines[lineNumber - 1] });

describe('completion context facts', () => {
    it('asks about the identifiers nearest the cursor, on its line first, not the word being typed nor keywords', () => {
        const doc = document('const cart = loadCart(userId);', '    const total = totalOf(cart, rat');
        assert.deepEqual(identifiersNear(doc, { lineNumber: 2, column: 36 }), [
            { name: 'cart', lineNumber: 2, column: 27 },
            { name: 'totalOf', lineNumber: 2, column: 19 },
            { name: 'total', lineNumber: 2, column: 11 },
            { name: 'userId', lineNumber: 1, column: 23 }
        ], '`rat` is being typed; the line above comes after the cursor\'s line');
        assert.deepEqual(identifiersNear(document('x = a + b'), { lineNumber: 1, column: 10 }), [], 'one-letter names say nothing');
    });

    it('lists the context sent in the log line, or nothing', () => {
        assert.equal(describeContext({ context: [{ source: 'definition', path: 'src/cart.ts', symbol: 'totalOf', tokens: 21 }, { source: 'similar', path: 'src/b.ts', tokens: 90 }] }),
            '; context: definition src/cart.ts (totalOf) ~21, similar src/b.ts ~90');
        assert.equal(describeContext({}), '');
    });
});
