import { createTwoFilesPatch } from 'diff';
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import picomatch = require('picomatch');
import { z } from 'zod';
import { createFileAtomically, replaceFileAtomically } from './workspace-file-write';
import { LineWindow, PastTheEnd, readFileLineWindow, readTextLineWindow } from './line-window';
import { FileSystemProjectScanner } from './project-scanner';
import { MAX_SEARCH_FILE_BYTES, searchWithRipgrep } from './ripgrep-search';
import { contextLine, formatSearchResults, MatchGroup, matchLine } from './search-results';
import { AnyTool, defineTool, ToolContext } from './tool';
import { assertWriteAsAsked } from './write-question';
import { ResolvedPath, ToolInputError, WorkspaceFiles } from './workspace-files';

/** The most lines one read_file call returns. */
export const MAX_READ_LINES = 2_000;
/** The most bytes of text one read_file call returns; a single longer line is cut there. */
export const MAX_READ_BYTES = 200_000;
/**
 * A file larger than this is read only in ranges (read_file with start_line or end_line), and its
 * lines are not counted; edit_file, which needs the whole text, refuses it.
 */
export const MAX_WHOLE_FILE_BYTES = 10_000_000;

/** A file's size, once it is known to be a file (errors the model can act on otherwise). */
async function fileSize(path: ResolvedPath): Promise<number> {
    let info;
    try {
        info = await stat(path.absolute);
    } catch {
        throw new ToolInputError(`"${path.relative}" does not exist. Use list_project_files or find_file to find the right path.`);
    }
    if (info.isDirectory()) {
        throw new ToolInputError(`"${path.relative}" is a folder. Use list_project_files to see what is in it.`);
    }
    if (!info.isFile()) {
        // A pipe or a device never ends (or blocks the open): only regular files are read.
        throw new ToolInputError(`"${path.relative}" is not a regular file (a pipe, socket or device); only files can be read.`);
    }
    return info.size;
}

/** Refuses a file whose first bytes hold a NUL: only text files are read. */
async function assertText(path: ResolvedPath): Promise<void> {
    const handle = await open(path.absolute, 'r');
    try {
        const head = Buffer.alloc(8_000);
        const { bytesRead } = await handle.read(head, 0, head.length, 0);
        if (head.subarray(0, bytesRead).includes(0)) {
            throw new ToolInputError(`"${path.relative}" is a binary file; only text files can be read.`);
        }
    } finally {
        await handle.close();
    }
}

/** The whole text of a file edit_file changes, sized before it is read. */
async function readText(path: ResolvedPath): Promise<string> {
    const size = await fileSize(path);
    if (size > MAX_WHOLE_FILE_BYTES) {
        throw new ToolInputError(`"${path.relative}" is ${describeSize(size)}, larger than the ${describeSize(MAX_WHOLE_FILE_BYTES)} edit_file works on.`);
    }
    await assertText(path);
    return readFile(path.absolute, 'utf8');
}

/** "3.0 GB (3221225472 bytes)". */
function describeSize(bytes: number): string {
    const units = [[1024 ** 3, 'GB'], [1024 ** 2, 'MB'], [1024, 'KB']] as const;
    const unit = units.find(([size]) => bytes >= size);
    return unit ? `${(bytes / unit[0]).toFixed(1)} ${unit[1]} (${bytes} bytes)` : `${bytes} bytes`;
}

/** Whether an open editor's text differs from the file on disk: the sizes first, the bytes only when they agree. */
async function differsFromDisk(file: string, text: string): Promise<boolean> {
    const size = await stat(file).then(info => info.size, () => undefined);
    if (size === undefined) {
        return false;
    }
    return size !== Buffer.byteLength(text, 'utf8') || text !== await readFile(file, 'utf8');
}

function rootsOf(files: WorkspaceFiles): ResolvedPath[] {
    return files.roots.map(root => ({ absolute: root, root, relative: '' }));
}

/** The project's files below `from`: through the context's scanner, or the file-system walk. */
function scan(context: Pick<ToolContext, 'files' | 'scanner' | 'signal'>, from: ResolvedPath): AsyncIterable<ResolvedPath> {
    return (context.scanner ?? new FileSystemProjectScanner(context.files)).files(from, context.signal);
}

export const readFileTool = defineTool({
    name: 'read_file',
    description: 'Read a text file of the project. Large files come in pages: ask for more with start_line.',
    permission: 'read',
    parameters: z.strictObject({
        path: z.string().describe('Path relative to the workspace root'),
        start_line: z.number().int().positive().optional().describe('First line to read (1-based)'),
        end_line: z.number().int().positive().optional().describe('Last line to read (inclusive)')
    }),
    run: async (args, context: ToolContext) => {
        const path = context.files.resolve(args.path);
        context.files.assertNotIgnored(path);
        const start = args.start_line ?? 1;
        if (args.end_line !== undefined && args.end_line < start) {
            throw new ToolInputError(`end_line ${args.end_line} is before start_line ${start}.`);
        }
        const editorText = await context.documents?.readOpen(path.absolute);
        let size: number | undefined;
        if (editorText === undefined) {
            size = await fileSize(path);
            if (size > MAX_WHOLE_FILE_BYTES && args.start_line === undefined && args.end_line === undefined) {
                throw new ToolInputError(`"${path.relative}" is ${describeSize(size)}, too large to read without a range. Read it in pages: call read_file with start_line and end_line (at most ${MAX_READ_LINES} lines a call), or find the lines you need with search_project first.`);
            }
            await assertText(path);
        }
        const request = { start, end: args.end_line, maxLines: MAX_READ_LINES, maxBytes: MAX_READ_BYTES, countLines: size === undefined || size <= MAX_WHOLE_FILE_BYTES };
        let page: LineWindow;
        try {
            page = editorText !== undefined ? await readTextLineWindow(editorText, request) : await readFileLineWindow(path.absolute, request);
        } catch (error) {
            if (error instanceof PastTheEnd) {
                throw new ToolInputError(`"${path.relative}" has ${error.lines} lines; start_line ${start} is past the end.`);
            }
            throw error;
        }
        const notes: string[] = [];
        if (page.cut) {
            const length = page.cut.lineBytes !== undefined ? `is ${page.cut.lineBytes} bytes long` : `is longer than ${page.cut.shownBytes} bytes`;
            notes.push(`[line ${page.end} ${length}; only its first ${page.cut.shownBytes} bytes are shown${page.more !== false ? `. Call read_file again with start_line=${page.end + 1} for the lines after it` : ''}]`);
        } else if (page.more && (args.end_line === undefined || page.end < args.end_line)) {
            const shown = page.total !== undefined ? `lines ${page.start}–${page.end} of ${page.total} shown`
                : `lines ${page.start}–${page.end} shown of a ${describeSize(size ?? 0)} file whose lines are not counted`;
            notes.push(`[${shown}; call read_file again with start_line=${page.end + 1} for more]`);
        }
        if (editorText !== undefined && await differsFromDisk(path.absolute, editorText)) {
            notes.push('[this is the editor\'s text, with changes not yet saved]');
        }
        return { content: [page.text, ...notes].join('\n') };
    }
});

export const listProjectFilesTool = defineTool({
    name: 'list_project_files',
    description: 'List the files of the project (or of one folder), skipping ignored files.',
    permission: 'read',
    parameters: z.strictObject({
        path: z.string().optional().describe('A folder relative to the workspace root; the whole workspace when absent'),
        max_results: z.number().int().positive().max(5_000).optional()
    }),
    run: async (args, context) => {
        const limit = args.max_results ?? 500;
        const starts = args.path ? [listStart(context.files, args.path)] : rootsOf(context.files);
        const shown: string[] = [];
        let total = 0;
        for (const start of starts) {
            for await (const file of scan(context, start)) {
                total++;
                if (shown.length < limit) {
                    shown.push(file.relative);
                }
            }
        }
        const more = total > shown.length ? `\n[${total - shown.length} more files not shown; narrow the path or raise max_results]` : '';
        return { content: shown.length ? `${shown.join('\n')}${more}` : 'No files (or all are ignored).' };
    }
});

/** A folder to list: allowed by the ignore rules, and walked at its real place so a linked folder's files show where they really are. */
function listStart(files: WorkspaceFiles, input: string): ResolvedPath {
    const path = files.resolve(input);
    files.assertNotIgnored(path);
    return files.real(path);
}

export const findFileTool = defineTool({
    name: 'find_file',
    description: 'Find files by name: exact file names first, then paths containing the query, then fuzzy matches.',
    permission: 'read',
    parameters: z.strictObject({ query: z.string().min(1), max_results: z.number().int().positive().max(200).optional() }),
    run: async (args, context) => {
        const shown = (await findFiles(context, args.query, args.max_results ?? 20)).map(file => file.relative);
        return { content: shown.length ? shown.join('\n') : `No file matches "${args.query}".` };
    }
});

/**
 * Project files whose path matches a query, ignore rules applied: exact file names first,
 * then paths containing it, then fuzzy (subsequence) matches; shorter paths first within each.
 * find_file and the chat's @-mentions both use it.
 */
export async function findFiles(context: Pick<ToolContext, 'files' | 'scanner' | 'signal'>, query: string, maxResults: number): Promise<ResolvedPath[]> {
    const needle = query.toLowerCase();
    const scored: Array<{ file: ResolvedPath; score: number }> = [];
    for (const root of rootsOf(context.files)) {
        for await (const file of scan(context, root)) {
            const path = file.relative.toLowerCase();
            const name = path.split('/').pop()!;
            const score = !needle ? 1 : name === needle ? 3 : path.includes(needle) ? 2 : isSubsequence(needle, path) ? 1 : 0;
            if (score > 0) {
                scored.push({ file, score });
            }
        }
    }
    scored.sort((a, b) => b.score - a.score || a.file.relative.length - b.file.relative.length || a.file.relative.localeCompare(b.file.relative));
    return scored.slice(0, maxResults).map(entry => entry.file);
}

function isSubsequence(needle: string, haystack: string): boolean {
    let index = 0;
    for (const char of haystack) {
        if (char === needle[index]) {
            index++;
            if (index === needle.length) {
                return true;
            }
        }
    }
    return false;
}

export const searchProjectTool = defineTool({
    name: 'search_project',
    description: 'Search the project\'s text files for a string or regular expression, with context lines.',
    permission: 'read',
    parameters: z.strictObject({
        query: z.string().min(1),
        regex: z.boolean().optional().describe('Treat the query as a regular expression'),
        case_sensitive: z.boolean().optional(),
        whole_word: z.boolean().optional(),
        glob: z.string().optional().describe('Only files whose relative path matches, e.g. "src/**/*.ts"'),
        max_results: z.number().int().positive().max(1_000).optional(),
        context_lines: z.number().int().min(0).max(5).optional()
    }),
    run: async (args, context) => {
        let pattern: RegExp;
        try {
            const source = args.regex ? args.query : args.query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
            pattern = new RegExp(args.whole_word ? `\\b(?:${source})\\b` : source, args.case_sensitive ? '' : 'i');
        } catch (error) {
            throw new ToolInputError(`The regular expression is invalid: ${error instanceof Error ? error.message : String(error)}`);
        }
        const matchesGlob = args.glob ? picomatch(args.glob, { dot: true }) : undefined;
        const limit = args.max_results ?? 100;
        const around = args.context_lines ?? 1;
        const groups: MatchGroup[] = [];
        let matches = 0;
        const ripgrep = await searchWithRipgrep(args, context, limit, around, matchesGlob);
        if (ripgrep) {
            groups.push(...ripgrep.groups);
            matches = ripgrep.matches;
        } else {
            // Read files a batch at a time (I/O overlaps), but report them in walk order.
            const batch: ResolvedPath[] = [];
            const flush = async () => {
                const results = await Promise.all(batch.splice(0).map(file => searchFile(file, pattern, around, limit)));
                for (const result of results) {
                    groups.push(...result.groups.slice(0, limit - groups.length));
                    matches += result.count;
                }
            };
            for (const root of rootsOf(context.files)) {
                for await (const file of scan(context, root)) {
                    if (!matchesGlob || matchesGlob(file.relative)) {
                        batch.push(file);
                        if (batch.length >= SEARCH_BATCH) {
                            await flush();
                        }
                    }
                }
            }
            await flush();
        }
        if (matches === 0) {
            return { content: `No match for ${args.regex ? '/' + args.query + '/' : JSON.stringify(args.query)}.` };
        }
        return { content: formatSearchResults(groups, matches, limit) };
    }
});

const SEARCH_BATCH = 32;

/** The file's bytes when it is a text file search_project reads (at most MAX_SEARCH_FILE_BYTES, sized before reading). */
async function searchableBytes(file: string): Promise<Buffer | undefined> {
    let handle;
    try {
        handle = await open(file, 'r');
        const { size } = await handle.stat();
        if (size > MAX_SEARCH_FILE_BYTES) {
            return undefined;
        }
        const bytes = Buffer.alloc(size);
        const { bytesRead } = await handle.read(bytes, 0, size, 0);
        return bytes.subarray(0, bytesRead);
    } catch {
        return undefined;
    } finally {
        await handle?.close();
    }
}

/** Scans one file (read whole: files are capped at MAX_SEARCH_FILE_BYTES) and returns its first `room` matches, and how many there are. */
async function searchFile(file: ResolvedPath, pattern: RegExp, around: number, room: number): Promise<{ count: number; groups: MatchGroup[] }> {
    const bytes = await searchableBytes(file.absolute);
    if (!bytes || bytes.subarray(0, 8_000).includes(0)) {
        return { count: 0, groups: [] };
    }
    const text = bytes.toString('utf8');
    if (!pattern.test(text)) {
        return { count: 0, groups: [] };
    }
    const lines = text.split(/\r?\n/);
    if (lines[lines.length - 1] === '') {
        lines.pop();
    }
    const groups: MatchGroup[] = [];
    let count = 0;
    let lastShown = -1;
    for (let index = 0; index < lines.length; index++) {
        const found = pattern.exec(lines[index]);
        if (!found) {
            continue;
        }
        count++;
        if (count > room) {
            continue;
        }
        const group: MatchGroup = { lines: [] };
        for (let before = Math.max(lastShown + 1, index - around); before < index; before++) {
            group.lines.push(contextLine(file.relative, before + 1, lines[before]));
        }
        group.lines.push(matchLine(file.relative, index + 1, lines[index], found.index));
        lastShown = index;
        for (let after = index + 1; after <= Math.min(lines.length - 1, index + around) && !pattern.test(lines[after]); after++) {
            group.lines.push(contextLine(file.relative, after + 1, lines[after]));
            lastShown = after;
        }
        groups.push(group);
    }
    return { count, groups };
}

/** A unified diff without the `=====` banner the diff package puts first. */
function patch(path: string, before: string | undefined, after: string): string {
    return createTwoFilesPatch(before === undefined ? '/dev/null' : `a/${path}`, `b/${path}`, before ?? '', after, undefined, undefined, { context: 3 })
        .replace(/^=+\n/, '');
}

export const createFileTool = defineTool({
    name: 'create_file',
    description: 'Create a new file with the given content. Fails if the file exists: use edit_file for changes.',
    permission: 'write',
    parameters: z.strictObject({ path: z.string(), content: z.string() }),
    run: async (args, context) => {
        const path = context.files.resolve(args.path);
        context.files.assertNotIgnored(path);
        if (existsSync(path.absolute)) {
            throw new ToolInputError(`"${path.relative}" already exists. Use edit_file to change it.`);
        }
        await mkdir(dirname(context.files.real(path).absolute), { recursive: true });
        const target = assertWriteAsAsked(context, path);
        if (context.writer) {
            await context.writer.write(target, args.content, { created: true });
        } else {
            await createFileAtomically(target, args.content);
        }
        return {
            content: `Created ${path.relative} (${args.content.split('\n').length} lines).`,
            fileEdit: { path: path.relative, absolutePath: path.absolute, created: true, diff: patch(path.relative, undefined, args.content) }
        };
    }
});

export const editFileTool = defineTool({
    name: 'edit_file',
    description: 'Replace an exact piece of text in a file. old_text must occur exactly once (or set replace_all). Copy old_text from read_file output, whitespace included.',
    permission: 'write',
    parameters: z.strictObject({
        path: z.string(),
        old_text: z.string().min(1),
        new_text: z.string(),
        replace_all: z.boolean().optional()
    }),
    run: async (args, context) => {
        const path = context.files.resolve(args.path);
        context.files.assertNotIgnored(path);
        // The editor's text when the file is open: the writer replaces the editor model, so an
        // edit built from the disk would silently drop the user's unsaved changes.
        const before = await context.documents?.readOpen(path.absolute) ?? await readText(path);
        const occurrences = countOccurrences(before, args.old_text);
        if (occurrences === 0) {
            throw new ToolInputError(`old_text was not found in "${path.relative}".${nearMatches(before, args.old_text)} Read the file again and copy the text exactly.`);
        }
        if (occurrences > 1 && !args.replace_all) {
            const lines = lineNumbersOf(before, args.old_text);
            throw new ToolInputError(`old_text occurs ${occurrences} times in "${path.relative}" (lines ${lines.join(', ')}). Include more surrounding text to make it unique, or set replace_all.`);
        }
        const after = args.replace_all ? before.split(args.old_text).join(args.new_text) : before.replace(args.old_text, () => args.new_text);
        // Checked again here: reading the editor's text awaited the IDE, time enough to swap a link.
        const target = assertWriteAsAsked(context, path);
        if (context.writer) {
            await context.writer.write(target, after, { created: false });
        } else {
            await replaceFileAtomically(target, after);
        }
        const diff = patch(path.relative, before, after);
        return {
            content: `Edited ${path.relative} (${occurrences} replacement${occurrences > 1 ? 's' : ''}).\n${diff}`,
            fileEdit: { path: path.relative, absolutePath: path.absolute, created: false, diff }
        };
    }
});

function countOccurrences(text: string, needle: string): number {
    let count = 0;
    for (let index = text.indexOf(needle); index >= 0; index = text.indexOf(needle, index + needle.length)) {
        count++;
    }
    return count;
}

function lineNumbersOf(text: string, needle: string): number[] {
    const lines: number[] = [];
    for (let index = text.indexOf(needle); index >= 0; index = text.indexOf(needle, index + needle.length)) {
        lines.push(text.slice(0, index).split('\n').length);
    }
    return lines;
}

/** Lines that look like the first line of old_text, ignoring whitespace and case, to show what the file really says. */
function nearMatches(text: string, needle: string): string {
    const squeeze = (line: string) => line.toLowerCase().replace(/\s+/g, '');
    const first = needle.split('\n').map(squeeze).find(line => line.length > 0);
    if (!first) {
        return '';
    }
    const candidates = text.split('\n').map((line, index) => ({ line, index }))
        .filter(({ line }) => {
            const compact = squeeze(line);
            return compact.length > 0 && (compact === first || (first.length >= 12 && compact.includes(first.slice(0, 12))));
        })
        .slice(0, 3);
    return candidates.length ? ` Similar lines: ${candidates.map(({ line, index }) => `line ${index + 1}: ${JSON.stringify(line)}`).join('; ')}.` : '';
}

export { hasRipgrep } from './ripgrep-search';

export const FILE_TOOLS: readonly AnyTool[] = [readFileTool, listProjectFilesTool, findFileTool, searchProjectTool, createFileTool, editFileTool];
