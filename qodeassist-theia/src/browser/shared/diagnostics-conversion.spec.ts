import * as assert from 'node:assert/strict';
import { toDiagnostics } from './diagnostics-conversion';

describe('toDiagnostics', () => {
    it('turns problem markers into 1-based file diagnostics with named severities', () => {
        assert.deepEqual(toDiagnostics([
            { uri: 'file:///work/app/src/a.ts', diagnostic: { range: { start: { line: 2, character: 6 } }, severity: 1, message: 'boom', source: 'ts' } },
            { uri: 'file:///work/app/src/b.ts', diagnostic: { range: { start: { line: 0, character: 0 } }, severity: 2, message: 'careful' } },
            { uri: 'untitled:Untitled-1', diagnostic: { range: { start: { line: 0, character: 0 } }, severity: 1, message: 'unsaved' } }
        ]), [
            { path: '/work/app/src/a.ts', line: 3, column: 7, severity: 'error', message: 'boom', source: 'ts' },
            { path: '/work/app/src/b.ts', line: 1, column: 1, severity: 'warning', message: 'careful' }
        ]);
    });
});
