import { readFileSync } from 'node:fs';
import { structuredPatch } from 'diff';
import { z } from 'zod';
import { ConfigIssue } from '../config/config-issue';
import { languageOfPath } from '../context/languages';
import { FimDatasetError, isContainedPath } from './fim-eval-dataset';

/**
 * The `nes-eval` dataset: JSONL, one case per line. A case is a moment of real history: the file
 * before the user's last edit (`previous`), after it (`text`, the cursor where the edit ended), and
 * after the edit that came next (`expected`).
 */
export const NesCaseSchema = z.strictObject({
    id: z.string().min(1),
    language: z.string().min(1).optional(),
    path: z.string().min(1).refine(isContainedPath, { message: 'must be a relative path inside the workspace, with "/" separators and no ".."' }),
    previous: z.string(),
    text: z.string(),
    /** Offset into `text`. */
    cursor: z.number().int().min(0),
    expected: z.string(),
    meta: z.record(z.string(), z.unknown()).optional()
}).refine(value => value.cursor <= value.text.length, { message: 'cursor is past the end of text', path: ['cursor'] });

export type NesCase = z.infer<typeof NesCaseSchema> & { language: string; /** 1-based line in the dataset file. */ line: number };

export function parseNesDataset(text: string, file: string): { cases: NesCase[]; issues: ConfigIssue[] } {
    const cases: NesCase[] = [];
    const issues: ConfigIssue[] = [];
    text.split('\n').forEach((raw, index) => {
        if (!raw.trim()) {
            return;
        }
        let json: unknown;
        try {
            json = JSON.parse(raw);
        } catch (error) {
            issues.push({ severity: 'error', file, line: index + 1, message: `not JSON: ${error instanceof Error ? error.message : String(error)}`, fix: 'write one JSON object per line' });
            return;
        }
        const parsed = NesCaseSchema.safeParse(json);
        if (!parsed.success) {
            const first = parsed.error.issues[0];
            issues.push({ severity: 'error', file, line: index + 1, field: first.path.join('.'), message: first.message, fix: 'fix the case or remove the line' });
            return;
        }
        cases.push({ ...parsed.data, language: parsed.data.language ?? languageOfPath(parsed.data.path), line: index + 1 });
    });
    return { cases, issues };
}

export function loadNesDataset(path: string): { cases: NesCase[]; issues: ConfigIssue[] } {
    let text: string;
    try {
        text = readFileSync(path, 'utf8');
    } catch (error) {
        throw new FimDatasetError(`Cannot read the dataset ${path}: ${error instanceof Error ? error.message : String(error)}.`);
    }
    return parseNesDataset(text, path);
}

export interface CutOptions {
    /** The next edit counts only when it starts within this many lines of the edit before it (the editable region's reach). */
    maxDistanceLines: number;
    /** Hunks with more changed lines than this are rewrites, not edits: no case starts or ends with one. */
    maxHunkLines: number;
}

export const DEFAULT_CUT: CutOptions = { maxDistanceLines: 15, maxHunkLines: 8 };

/**
 * Edit sequences cut from two real versions of a file (e.g. two published versions of a package):
 * their line diff is replayed hunk by hunk from the old version, and each pair of neighbouring
 * hunks close enough together is a case — the first is the edit the user made, the second the
 * next edit to predict.
 */
export function casesFromVersions(path: string, before: string, after: string, idPrefix: string, options: CutOptions = DEFAULT_CUT): NesCase[] {
    const hunks = structuredPatch(path, path, before, after, '', '', { context: 0 }).hunks;
    const states = [before];
    let text = before;
    // Applied top-down, each state is a real intermediate file; the lines above a hunk are then the new version's, so a pure
    // insertion goes where the new version has it (jsdiff's oldStart for an empty old side is not the GNU convention).
    let shift = 0;
    const cursors: number[] = [];
    for (const hunk of hunks) {
        const lines = text.split('\n');
        const start = hunk.oldLines === 0 ? hunk.newStart - 1 : hunk.oldStart - 1 + shift;
        const added = hunk.lines.filter(line => line.startsWith('+')).map(line => line.slice(1));
        lines.splice(start, hunk.oldLines, ...added);
        shift += hunk.newLines - hunk.oldLines;
        text = lines.join('\n');
        states.push(text);
        const endLine = start + Math.max(added.length, 1) - 1;
        const cursorLines = text.split('\n').slice(0, endLine + 1);
        cursors.push(Math.min(text.length, cursorLines.join('\n').length));
    }
    if (text !== after) {
        // A diff this replay does not reproduce (e.g. line endings it normalizes) would make cases that never happened.
        throw new FimDatasetError(`Replaying the diff of ${path} did not give its new version (mixed line endings?): no case was cut from it. Convert both versions to LF first.`);
    }
    const cases: NesCase[] = [];
    for (let index = 0; index + 1 < hunks.length; index++) {
        const edit = hunks[index];
        const next = hunks[index + 1];
        const size = (hunk: typeof edit) => hunk.oldLines + hunk.newLines;
        if (size(edit) > options.maxHunkLines || size(next) > options.maxHunkLines || next.oldStart - (edit.oldStart + edit.oldLines) > options.maxDistanceLines) {
            continue;
        }
        cases.push({
            id: `${idPrefix}#${index + 1}`, path, language: languageOfPath(path), line: 0,
            previous: states[index], text: states[index + 1], cursor: cursors[index], expected: states[index + 2],
            meta: { hunk: index + 1, of: hunks.length }
        });
    }
    return cases;
}
