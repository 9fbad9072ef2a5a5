import * as assert from 'node:assert/strict';
import { DocumentChange, RecentEdits } from './recent-edits';

/** A document as lines, changed the way Monaco reports it (1-based lines of the range before the change). */
class Doc {
    constructor(public lines: string[]) { }
    /** Replaces lines startLine..endLine with `text` (whole lines: the tracker reads only line numbers). */
    apply(startLine: number, endLine: number, text: string): DocumentChange {
        this.lines = [...this.lines.slice(0, startLine - 1), ...text.split('\n'), ...this.lines.slice(endLine)];
        return { range: { startLineNumber: startLine, endLineNumber: endLine }, text };
    }
    read = (from: number, to: number) => this.lines.slice(from, to + 1);
}

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i}`);

describe('RecentEdits', () => {
    it('keeps each edited region with two lines around it, the newest first', () => {
        const edits = new RecentEdits();
        const a = new Doc(numbered(20));
        const b = new Doc(numbered(20));
        edits.record('/w/a.ts', [a.apply(10, 10, 'changed a')], a.read, a.lines.length);
        edits.record('/w/b.ts', [b.apply(3, 3, 'changed b')], b.read, b.lines.length);
        assert.deepEqual(edits.newest(5), [
            { path: '/w/b.ts', startLine: 0, text: 'line 0\nline 1\nchanged b\nline 3\nline 4' },
            { path: '/w/a.ts', startLine: 7, text: 'line 7\nline 8\nchanged a\nline 10\nline 11' }
        ]);
        assert.equal(edits.newest(1).length, 1);
    });

    it('joins a change near a region into it and makes it the newest again', () => {
        const edits = new RecentEdits();
        const a = new Doc(numbered(30));
        edits.record('/w/a.ts', [a.apply(10, 10, 'first')], a.read, a.lines.length);
        edits.record('/w/b.ts', [{ range: { startLineNumber: 1, endLineNumber: 1 }, text: 'x' }], () => ['x'], 1);
        edits.record('/w/a.ts', [a.apply(12, 12, 'second')], a.read, a.lines.length);
        assert.deepEqual(edits.newest(5).map(region => [region.path, region.startLine]), [['/w/a.ts', 7], ['/w/b.ts', 0]]);
        assert.equal(edits.newest(1)[0].text, 'line 7\nline 8\nfirst\nline 10\nsecond\nline 12\nline 13');
    });

    it('moves a region when lines are added or removed above it, and keeps its text', () => {
        const edits = new RecentEdits();
        const a = new Doc(numbered(40));
        edits.record('/w/a.ts', [a.apply(30, 30, 'edited')], a.read, a.lines.length);
        edits.record('/w/a.ts', [a.apply(2, 2, 'one\ntwo\nthree')], a.read, a.lines.length);
        const [top, moved] = edits.newest(2);
        assert.equal(top.startLine, 0);
        assert.equal(moved.startLine, 29, 'two lines added above: 27 + 2');
        assert.equal(moved.text, 'line 27\nline 28\nedited\nline 30\nline 31');
        assert.equal(a.lines[moved.startLine + 2], 'edited');
    });

    it('keeps the middle of a large paste and at most its bound of regions', () => {
        const edits = new RecentEdits(3);
        const a = new Doc(numbered(10));
        const pasted = Array.from({ length: 100 }, (_, i) => `pasted ${i}`).join('\n');
        edits.record('/w/a.ts', [a.apply(5, 5, pasted)], a.read, a.lines.length);
        assert.equal(edits.newest(1)[0].text.split('\n').length, 24);
        for (const name of ['b', 'c', 'd']) {
            edits.record(`/w/${name}.ts`, [{ range: { startLineNumber: 1, endLineNumber: 1 }, text: name }], () => [name], 1);
        }
        assert.deepEqual(edits.newest(10).map(region => region.path), ['/w/d.ts', '/w/c.ts', '/w/b.ts']);
        edits.forget('/w/c.ts');
        assert.deepEqual(edits.newest(10).map(region => region.path), ['/w/d.ts', '/w/b.ts']);
    });
});
