import * as assert from 'node:assert/strict';
import { selectionIndent } from './refactor-prompt';
import { cleanRefactorResponse } from './refactor-response';
import { CLEAN_CASES, SELECTION_CLOSE, SELECTION_OPEN } from './refactor-response.cases';

describe('refactor response cleaning', () => {
    it('has at least 25 cases', () => assert.ok(CLEAN_CASES.length >= 25, String(CLEAN_CASES.length)));
    for (const entry of CLEAN_CASES) {
        it(entry.name, () => {
            const start = entry.file.indexOf(SELECTION_OPEN);
            const end = entry.file.indexOf(SELECTION_CLOSE) - SELECTION_OPEN.length;
            assert.ok(start >= 0 && end >= start, 'the case marks the selection');
            const text = entry.file.replace(SELECTION_OPEN, '').replace(SELECTION_CLOSE, '');
            const { indent, startsMidLine } = selectionIndent({ filePath: 'f', language: 'x', text, selection: { start, end }, cursor: end });
            const cleaned = cleanRefactorResponse(entry.output, {
                baseIndent: indent, startsMidLine, endsWithNewline: text.slice(start, end).endsWith('\n'),
                indent: entry.indent ?? { insertSpaces: true, tabSize: 4 }, partial: entry.partial
            });
            assert.equal(cleaned, entry.expected);
        });
    }
});
