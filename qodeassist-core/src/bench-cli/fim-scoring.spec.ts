import * as assert from 'node:assert/strict';
import { expectedSpanOf, scoreCompletion, withoutTrailingWhitespace } from './fim-scoring';

describe('fim-eval scoring', () => {
    it('an exact match ignores trailing whitespace, per line and at the end', () => {
        assert.equal(withoutTrailingWhitespace('a = 1;  \n\tb = 2;\t\n\n'), 'a = 1;\n\tb = 2;');
        assert.deepEqual(scoreCompletion('return x;   \n', 'return x;'), { scored: 'return x;', exactMatch: true, editSimilarity: 1 });
    });

    it('leading whitespace is a difference: indentation is part of the code', () => {
        const score = scoreCompletion(' return x;', 'return x;');
        assert.equal(score.exactMatch, false);
        assert.equal(score.editSimilarity, 1 - 1 / 10);
    });

    it('only the expected span is scored: lines written past it are cut', () => {
        assert.equal(expectedSpanOf('a\nb\nc', 'a'), 'a');
        assert.equal(expectedSpanOf('a\nb\nc', 'x\ny\n'), 'a\nb');
        assert.equal(scoreCompletion('const a = 1;\nconst b = 2;', 'const a = 1;').exactMatch, true);
        assert.equal(scoreCompletion('if (x) {\n    y();\n}\nz();', 'if (x) {\n    y();\n}').exactMatch, true);
    });

    it('edit similarity is 1 − Levenshtein distance ÷ the longer length', () => {
        assert.equal(scoreCompletion('sitting', 'kitten').editSimilarity, 1 - 3 / 7);
        assert.equal(scoreCompletion('items.slice(0, n)', 'items.slice(0, size)').editSimilarity, 1 - 4 / 20);
        assert.equal(scoreCompletion('abc', 'abcdef').editSimilarity, 0.5);
    });

    it('an empty completion scores 0 against any expected text; a shorter line is not an exact match', () => {
        assert.deepEqual(scoreCompletion('', 'return x;'), { scored: '', exactMatch: false, editSimilarity: 0 });
        assert.equal(scoreCompletion('return', 'return x;').exactMatch, false);
    });
});
