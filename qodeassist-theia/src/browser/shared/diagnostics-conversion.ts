import type { Diagnostic } from '@qodeassist/core';
import URI from '@theia/core/lib/common/uri';

/** What a Theia problem marker carries that matters here (an LSP Diagnostic and the file URI). */
export interface MarkerLike {
    uri: string;
    diagnostic: { range: { start: { line: number; character: number } }; severity?: number; message: string; source?: string };
}

const SEVERITY: Record<number, Diagnostic['severity']> = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };

/** Problem markers as the core's Diagnostic: file paths, 1-based positions, named severities. */
export function toDiagnostics(markers: readonly MarkerLike[]): Diagnostic[] {
    return markers.filter(marker => marker.uri.startsWith('file:')).map(marker => ({
        path: new URI(marker.uri).path.fsPath(),
        line: marker.diagnostic.range.start.line + 1,
        column: marker.diagnostic.range.start.character + 1,
        severity: SEVERITY[marker.diagnostic.severity ?? 1] ?? 'error',
        message: marker.diagnostic.message,
        ...(marker.diagnostic.source ? { source: marker.diagnostic.source } : {})
    }));
}
