import { FimCaseInput, FimCaseSchema, cursorWindow, postprocessCompletion } from '@qodeassist/core';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';

/**
 * The `fim-eval` dataset committed under test/fixtures/fim-eval: cases cut mechanically from
 * TypeScript and Python sources that come inside packages of this tree (no network), plus a
 * few small JavaScript cases that carry `node --test` checks for pass@1.
 *
 *   node test/lib/bench/fim-eval-dataset-generator.js           rewrites the file
 *   node test/lib/bench/fim-eval-dataset-generator.js --check   exits 1 when it is stale
 */

const ROOT = join(__dirname, '..', '..', '..');
export const DATASET_FILE = join(ROOT, 'test', 'fixtures', 'fim-eval', 'packaged-sources.jsonl');

/** Bounded windows, inside the engine's default 50 lines before and 30 after, so the engine sends them whole. */
const PREFIX_LINES = 40;
const PREFIX_CHARS = 2_000;
const SUFFIX_LINES = 20;
const SUFFIX_CHARS = 1_000;

export interface PackagedSource {
    /** The package folder under node_modules. */
    pkg: string;
    /** Folder inside the package whose files are cut. */
    folder: string;
    extension: '.ts' | '.py';
    cases: number;
}

export const SOURCES: readonly PackagedSource[] = [
    { pkg: 'zod', folder: 'src/v4/core', extension: '.ts', cases: 15 },
    { pkg: 'openai', folder: 'src/internal', extension: '.ts', cases: 15 },
    { pkg: 'node-gyp', folder: 'gyp/pylib/gyp', extension: '.py', cases: 15 }
];

/** A small seeded generator (mulberry32): the same dataset from the same sources, every time. */
function random(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

function filesUnder(folder: string, extension: string): string[] {
    const found: string[] = [];
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        const path = join(folder, entry.name);
        if (entry.isDirectory() && !/^(tests?|__tests__|_vendor)$/.test(entry.name)) {
            found.push(...filesUnder(path, extension));
        } else if (entry.isFile() && extname(entry.name) === extension && !/(\.d\.ts|_test\.py|\.test\.ts|\.spec\.ts)$/.test(entry.name)) {
            found.push(path);
        }
    }
    return found;
}

/** Where a line may be split so that the rest of it is a natural thing to complete. */
const SPLIT_POINTS = [' = ', ' => ', 'return ', '(', ': '];

/**
 * Lines that start inside, open or close a multi-line string or block comment (Python's triple
 * quotes; TypeScript's template literals and block comments): prose or data, not code to complete.
 */
function linesInBlocks(lines: readonly string[], language: string): Set<number> {
    const marks = language === 'python' ? [/"""/g, /'''/g] : [/`/g];
    const inside = new Set<number>();
    let open: RegExp | undefined;
    let comment = false;
    lines.forEach((line, index) => {
        const startsInside = open !== undefined || comment;
        for (const mark of marks) {
            if ((!open || open === mark) && (line.match(mark)?.length ?? 0) % 2 === 1) {
                open = open ? undefined : mark;
            }
        }
        if (language !== 'python') {
            comment = comment ? !line.includes('*/') : line.includes('/*') && !line.includes('*/');
        }
        if (startsInside || open !== undefined || comment) {
            inside.add(index);
        }
    });
    return inside;
}

/** A line worth masking: code (not a comment or a bare closer), of a sensible length, not a repeat of the line above. */
function isCandidate(lines: readonly string[], index: number, language: string, blocks: Set<number>): boolean {
    const text = lines[index].trim();
    const comment = language === 'python' ? /(^|\s)#|"""|'''/ : /\/\/|\/\*|^\*|`/;
    return index >= 8 && index < lines.length - 2 && !blocks.has(index) && text.length >= 12 && text.length <= 100 && !comment.test(text)
        && /[A-Za-z_]/.test(text) && !/^[)\]}>;,'"`]+$/.test(text) && lines[index - 1].trim() !== text && !/\s$/.test(lines[index]);
}

function bounded(lines: readonly string[], maxChars: number, fromEnd: boolean): string {
    const kept: string[] = [];
    let size = 0;
    for (const line of fromEnd ? [...lines].reverse() : lines) {
        if (size + line.length + 1 > maxChars && kept.length > 0) {
            break;
        }
        kept.push(line);
        size += line.length + 1;
    }
    return (fromEnd ? kept.reverse() : kept).join('\n');
}

/** One case at a line: the whole line after its indentation, or the rest of it after a split point. */
function cutCase(lines: readonly string[], index: number, kind: 'line' | 'rest'): { prefix: string; suffix: string; expected: string; kind: string } | undefined {
    const line = lines[index];
    const indentation = /^\s*/.exec(line)![0];
    let at = indentation.length;
    if (kind === 'rest') {
        const splits = SPLIT_POINTS.map(point => ({ point, found: line.indexOf(point, indentation.length + 1) })).filter(split => split.found > 0);
        const split = splits.sort((a, b) => a.found - b.found)[0];
        if (!split || line.length - (split.found + split.point.length) < 4) {
            return undefined;
        }
        at = split.found + split.point.length;
    }
    const expected = line.slice(at);
    if (!expected || /^\s/.test(expected)) {
        return undefined;
    }
    const before = bounded(lines.slice(Math.max(0, index - PREFIX_LINES), index), PREFIX_CHARS, true);
    const after = bounded(lines.slice(index + 1, index + 1 + SUFFIX_LINES), SUFFIX_CHARS, false);
    return { prefix: `${before}\n${line.slice(0, at)}`, suffix: `\n${after}`, expected, kind };
}

/** A perfect model must score 1: the engine's post-processing leaves the expected text as it is. */
function survivesPostprocessing(testCase: { prefix: string; suffix: string; expected: string }, language: string): boolean {
    const around = cursorWindow(testCase.prefix + testCase.suffix, testCase.prefix.length);
    return around.prefix === testCase.prefix && postprocessCompletion(testCase.expected, { ...around, language }) === testCase.expected;
}

function packagedCases(source: PackagedSource, seed: number): FimCaseInput[] {
    const packageRoot = join(ROOT, 'node_modules', source.pkg);
    const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string; license?: string };
    const language = source.extension === '.py' ? 'python' : 'typescript';
    const next = random(seed);
    const files = filesUnder(join(packageRoot, source.folder), source.extension);
    const cases: FimCaseInput[] = [];
    // Round-robin over the files in a seeded order, one case per visit: spread across the package, at most a few per file.
    const order = files.map(file => ({ file, key: next() })).sort((a, b) => a.key - b.key).map(entry => entry.file);
    for (let round = 0; cases.length < source.cases && round < 3; round++) {
        for (const file of order) {
            if (cases.length >= source.cases) {
                break;
            }
            const lines = readFileSync(file, 'utf8').replace(/\r\n/g, '\n').split('\n');
            const blocks = linesInBlocks(lines, language);
            const candidates = lines.map((_, index) => index).filter(index => isCandidate(lines, index, language, blocks));
            if (candidates.length === 0) {
                continue;
            }
            const index = candidates[Math.floor(next() * candidates.length)];
            const kind = next() < 0.5 ? 'line' : 'rest';
            const cut = cutCase(lines, index, kind) ?? cutCase(lines, index, 'line');
            const path = relative(packageRoot, file).split('\\').join('/');
            const id = `${source.pkg}/${path}:${index + 1}`;
            if (!cut || !survivesPostprocessing(cut, language) || cases.some(existing => existing.id === id)) {
                continue;
            }
            const { kind: cutKind, ...texts } = cut;
            cases.push({ id, language, path, ...texts, meta: { source: `${source.pkg}@${manifest.version}`, line: index + 1, kind: cutKind, license: manifest.license } });
        }
    }
    return cases;
}

const node = (test: string) => ({ command: ['node', '--test', test], timeoutSeconds: 30 });

/** Small functions whose completion is checked by running tests: pass@1. */
export const TESTED_CASES: readonly FimCaseInput[] = [
    {
        id: 'tested/clamp', language: 'javascript', path: 'src/clamp.js',
        prefix: '\'use strict\';\n\n/** Limits value to the range [min, max]. */\nfunction clamp(value, min, max) {\n    ',
        expected: 'return Math.min(Math.max(value, min), max);',
        suffix: '\n}\n\nmodule.exports = { clamp };\n',
        tests: {
            ...node('test/clamp.test.js'),
            files: { 'test/clamp.test.js': 'const { test } = require(\'node:test\');\nconst assert = require(\'node:assert/strict\');\nconst { clamp } = require(\'../src/clamp.js\');\n\ntest(\'clamp\', () => {\n    assert.equal(clamp(5, 0, 10), 5);\n    assert.equal(clamp(-3, 0, 10), 0);\n    assert.equal(clamp(12, 0, 10), 10);\n});\n' }
        },
        meta: { source: 'hand-written', kind: 'line' }
    },
    {
        id: 'tested/chunk', language: 'javascript', path: 'src/chunk.js',
        prefix: '\'use strict\';\n\n/** Splits items into arrays of at most size items. */\nfunction chunk(items, size) {\n    const result = [];\n    for (let i = 0; i < items.length; i += size) {\n        result.push(',
        expected: 'items.slice(i, i + size));',
        suffix: '\n    }\n    return result;\n}\n\nmodule.exports = { chunk };\n',
        tests: {
            ...node('test/chunk.test.js'),
            files: { 'test/chunk.test.js': 'const { test } = require(\'node:test\');\nconst assert = require(\'node:assert/strict\');\nconst { chunk } = require(\'../src/chunk.js\');\n\ntest(\'chunk\', () => {\n    assert.deepEqual(chunk([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);\n    assert.deepEqual(chunk([], 3), []);\n});\n' }
        },
        meta: { source: 'hand-written', kind: 'rest' }
    },
    {
        id: 'tested/slugify', language: 'javascript', path: 'src/slugify.js',
        prefix: '\'use strict\';\n\nconst { normalizeSpaces } = require(\'./text.js\');\n\n/** A title as a URL slug: lower case, runs of other characters as one dash, none at the ends. */\nfunction slugify(title) {\n    return normalizeSpaces(title)\n        ',
        expected: '.toLowerCase()\n        .replace(/[^a-z0-9]+/g, \'-\')',
        suffix: '\n        .replace(/^-+|-+$/g, \'\');\n}\n\nmodule.exports = { slugify };\n',
        tests: {
            ...node('test/slugify.test.js'),
            files: { 'test/slugify.test.js': 'const { test } = require(\'node:test\');\nconst assert = require(\'node:assert/strict\');\nconst { slugify } = require(\'../src/slugify.js\');\n\ntest(\'slugify\', () => {\n    assert.equal(slugify(\'  Hello,   World! \'), \'hello-world\');\n    assert.equal(slugify(\'Déjà vu 2\'), \'d-j-vu-2\');\n});\n' }
        },
        repo_files: [{ path: 'src/text.js', content: '\'use strict\';\n\n/** Runs of whitespace as one space, none at the ends. */\nexports.normalizeSpaces = text => text.replace(/\\s+/g, \' \').trim();\n' }],
        meta: { source: 'hand-written', kind: 'lines' }
    }
];

export function buildFimDataset(): FimCaseInput[] {
    const unfair = TESTED_CASES.find(entry => !survivesPostprocessing(entry, entry.language!));
    if (unfair) {
        throw new Error(`${unfair.id}: the engine's post-processing changes its expected text, so a perfect model could not match it`);
    }
    const cases = [...SOURCES.flatMap((source, index) => packagedCases(source, 0x51f0 + index)), ...TESTED_CASES];
    // The generator's output is a dataset like any other: it must pass the harness's own schema.
    return cases.map(entry => FimCaseSchema.parse(entry));
}

export function formatFimDataset(cases: readonly FimCaseInput[]): string {
    return cases.map(entry => JSON.stringify(entry)).join('\n') + '\n';
}

if (require.main === module) {
    const text = formatFimDataset(buildFimDataset());
    if (process.argv.includes('--check')) {
        const current = readFileSync(DATASET_FILE, 'utf8');
        console.log(current === text ? `${DATASET_FILE} is up to date.` : `${DATASET_FILE} is stale: run node test/lib/bench/fim-eval-dataset-generator.js`);
        process.exitCode = current === text ? 0 : 1;
    } else {
        writeFileSync(DATASET_FILE, text);
        console.log(`${DATASET_FILE}: ${text.split('\n').length - 1} cases, ${text.length} characters.`);
    }
}
