import * as assert from 'node:assert/strict';
import { editableRegion } from './edit-region';

const CURSOR = '█';
const lines = (count: number) => Array.from({ length: count }, (_, index) => `line ${index}`).join('\n');

function at(text: string) {
    const offset = text.indexOf(CURSOR);
    return { text: text.replace(CURSOR, ''), offset };
}

describe('editableRegion', () => {
    const cases: Array<{ name: string; text: string; regionLines: number; contextLines: number; expect: { region: string; before: string; after: string; beforeCursor: string; startOfFile: boolean } }> = [
        {
            name: 'centres the region on the cursor line with context on both sides',
            text: lines(20).replace('line 10', 'line█ 10'), regionLines: 3, contextLines: 2,
            expect: { region: 'line 9\nline 10\nline 11', before: 'line 7\nline 8\n', after: 'line 12\nline 13', beforeCursor: 'line 9\nline', startOfFile: false }
        },
        {
            name: 'at the file start, gives the lines above it to the lines below',
            text: `█${lines(10)}`, regionLines: 4, contextLines: 1,
            expect: { region: 'line 0\nline 1\nline 2\nline 3', before: '', after: 'line 4', beforeCursor: '', startOfFile: true }
        },
        {
            name: 'at the file end, gives the lines below it to the lines above',
            text: `${lines(10)}█`, regionLines: 4, contextLines: 1,
            expect: { region: 'line 6\nline 7\nline 8\nline 9', before: 'line 5\n', after: '', beforeCursor: 'line 6\nline 7\nline 8\nline 9', startOfFile: false }
        },
        {
            name: 'a file shorter than the budget is all region',
            text: 'a\nb█\n', regionLines: 40, contextLines: 20,
            expect: { region: 'a\nb\n', before: '', after: '', beforeCursor: 'a\nb', startOfFile: true }
        }
    ];
    for (const { name, text, regionLines, contextLines, expect } of cases) {
        it(name, () => {
            const { text: whole, offset } = at(text);
            const region = editableRegion(whole, offset, { regionLines, contextLines });
            assert.deepEqual({
                region: whole.slice(region.start, region.end), before: region.before, after: region.after, beforeCursor: region.beforeCursor, startOfFile: region.startOfFile
            }, expect);
            assert.equal(region.beforeCursor + region.afterCursor, whole.slice(region.start, region.end), 'the cursor cuts the region in two');
        });
    }
});
