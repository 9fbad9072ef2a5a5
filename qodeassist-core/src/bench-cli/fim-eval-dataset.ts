import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { z } from 'zod';
import { ConfigIssue, didYouMean } from '../config/config-issue';
import { languageOfPath } from '../context/languages';
import { QodeAssistError } from '../wire/error-info';

/**
 * The `fim-eval` dataset: JSONL, one case per line. Paths are workspace-relative with `/`
 * (they reach the prompt and the agents' [match] rules, and a case with tests is written
 * out under them), so they may not climb out of the folder they are written into.
 */
const RelativePath = z.string().min(1).refine(isContainedPath, {
    message: 'must be a relative path inside the workspace, with "/" separators and no ".." (e.g. "src/util.ts")'
});

const TestsSchema = z.strictObject({
    /** More files the test command needs (the test itself, fixtures), by relative path. */
    files: z.record(RelativePath, z.string()).optional(),
    /** The program and its arguments, run without a shell in the case's folder, e.g. ["node", "--test", "test/sum.test.js"]. */
    command: z.array(z.string().min(1)).min(1),
    timeoutSeconds: z.number().positive().max(600).optional()
});

export const FimCaseSchema = z.strictObject({
    id: z.string().min(1),
    /** As editors name it (`typescript`, `python`); by default from the path's extension. */
    language: z.string().min(1).optional(),
    path: RelativePath,
    /** The file's text before and after the masked span; with tests, prefix + expected + suffix is the whole file. */
    prefix: z.string(),
    suffix: z.string(),
    expected: z.string().min(1),
    tests: TestsSchema.optional(),
    /** Other files of the repository: given to the engine as open files (within --open-files-tokens), and written beside the case for its tests. */
    repo_files: z.array(z.strictObject({ path: RelativePath, content: z.string() })).optional(),
    /** Free-form facts about the case (where it was cut from, its license), copied to the results. */
    meta: z.record(z.string(), z.unknown()).optional()
});

export type FimCaseInput = z.infer<typeof FimCaseSchema>;
export type FimCase = FimCaseInput & { language: string; /** 1-based line in the dataset file. */ line: number };

export interface FimDataset {
    cases: FimCase[];
    /** Lines that were skipped, each with file, line, what is wrong and the fix. */
    issues: ConfigIssue[];
}

/** A dataset that cannot be used at all: unreadable, or without one valid case. */
export class FimDatasetError extends QodeAssistError {
    constructor(message: string) {
        super({ category: 'Validation', message });
        this.name = 'FimDatasetError';
    }
}

export function isContainedPath(path: string): boolean {
    return !path.includes('\\') && !path.includes('\0') && !posix.isAbsolute(path) && !/^[A-Za-z]:/.test(path)
        && posix.normalize(path) === path && !path.split('/').includes('..') && path !== '.';
}

const KNOWN_KEYS: Record<string, readonly string[]> = {
    '': Object.keys(FimCaseSchema.shape),
    tests: Object.keys(TestsSchema.shape),
    repo_files: ['path', 'content']
};

/** Reads and checks a dataset; a bad line is reported with its line number and skipped, the others are kept. */
export function loadFimDataset(file: string): FimDataset {
    let text: string;
    try {
        text = readFileSync(file, 'utf8');
    } catch (error) {
        throw new FimDatasetError(`The dataset ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}). Pass --dataset the path of a JSONL file, one case per line.`);
    }
    return parseFimDataset(file, text);
}

export function parseFimDataset(file: string, text: string): FimDataset {
    const cases: FimCase[] = [];
    const issues: ConfigIssue[] = [];
    const seen = new Map<string, number>();
    const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
    lines.forEach((source, index) => {
        const line = index + 1;
        if (!source.trim()) {
            return;
        }
        const issue = (message: string, fix: string, field?: string) => issues.push({ severity: 'error', file, line, field, message, fix });
        let value: unknown;
        try {
            value = JSON.parse(source);
        } catch (error) {
            issue(`not valid JSON (${(error as Error).message})`, 'write each case as one JSON object on one line (JSONL)');
            return;
        }
        const parsed = FimCaseSchema.safeParse(value);
        if (!parsed.success) {
            for (const problem of parsed.error.issues) {
                const path = problem.path.filter((part): part is string | number => typeof part !== 'symbol');
                const [message, fix] = explain(problem, path);
                issue(message, fix, path.join('.') || undefined);
            }
            return;
        }
        const entry = parsed.data;
        const first = seen.get(entry.id);
        if (first !== undefined) {
            issue(`the id "${entry.id}" is already used on line ${first}`, 'give every case its own id', 'id');
            return;
        }
        const written = [entry.path, ...Object.keys(entry.tests?.files ?? {}), ...(entry.repo_files ?? []).map(repoFile => repoFile.path)];
        const twice = written.find((path, at) => written.indexOf(path) !== at);
        if (twice) {
            issue(`the path "${twice}" is given twice (path, tests.files, repo_files)`, 'give each file of a case one path; the case\'s own file comes from prefix + completion + suffix');
            return;
        }
        seen.set(entry.id, line);
        cases.push({ ...entry, language: entry.language ?? languageOfPath(entry.path), line });
    });
    return { cases, issues };
}

function explain(problem: z.core.$ZodIssue, path: Array<string | number>): [string, string] {
    const field = path.join('.');
    if (problem.code === 'unrecognized_keys') {
        const known = KNOWN_KEYS[path.filter(part => typeof part === 'string').join('.')] ?? [];
        const key = problem.keys[0];
        const suggestion = didYouMean(key, known);
        return [`unknown key "${key}"${problem.keys.length > 1 ? ` (and ${problem.keys.length - 1} more)` : ''}`,
            suggestion ? `did you mean "${suggestion}"?` : `remove it, or put it under "meta"; known keys here: ${known.join(', ')}`];
    }
    if (problem.code === 'invalid_type' && /received undefined/.test(problem.message)) {
        return [`missing required key "${field}"`, `add "${String(path.at(-1))}" (${problem.expected})`];
    }
    if (problem.code === 'invalid_key') {
        // A bad file name in tests.files: the key's own problem says what is wrong with it.
        return [`the key "${String(path.at(-1))}" ${problem.issues[0]?.message ?? 'is not valid'}`, 'write it as a relative path such as "test/sum.test.js"'];
    }
    return [problem.message, `fix "${field || 'the case'}" as the dataset format says (README, "The bench CLI")`];
}
