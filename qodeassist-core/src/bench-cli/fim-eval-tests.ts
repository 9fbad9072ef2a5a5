import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ITerminal } from '../ports/process-ports';
import { NodeTerminal } from '../tools/node-process';
import { FimCase } from './fim-eval-dataset';

/** How a case's tests went with the completion in place. */
export interface FimTestOutcome {
    passed: boolean;
    exitCode: number | null;
    timedOut: boolean;
    /** The command's output (both ends of it when long), kept when the tests failed. */
    output?: string;
}

const DEFAULT_TIMEOUT_SECONDS = 30;
const MAX_OUTPUT_CHARS = 4_000;

/**
 * pass@1 for one case: the completed file (prefix + completion + suffix), the repository files
 * and the test files are written into a fresh temporary folder, and the test command runs there
 * as the tools run commands — no shell, a scrubbed environment (no keys), the program found
 * outside that folder, bubblewrap where it starts (only that folder writable, key folders hidden),
 * the whole process tree ended at the time limit. The folder is removed after.
 */
export async function runCaseTests(testCase: FimCase, completion: string, options: { terminal?: ITerminal; signal?: AbortSignal } = {}): Promise<FimTestOutcome | undefined> {
    const tests = testCase.tests;
    if (!tests) {
        return undefined;
    }
    // The real path: the runner compares the program's location with this folder, links resolved.
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-fim-eval-')));
    try {
        const files: Array<[string, string]> = [
            ...(testCase.repo_files ?? []).map(file => [file.path, file.content] as [string, string]),
            ...Object.entries(tests.files ?? {}),
            [testCase.path, testCase.prefix + completion + testCase.suffix]
        ];
        for (const [path, content] of files) {
            const target = join(folder, path);
            mkdirSync(dirname(target), { recursive: true });
            writeFileSync(target, content);
        }
        const terminal = options.terminal ?? new NodeTerminal();
        const result = await terminal.run(tests.command, {
            cwd: folder, workspaceRoots: [folder], timeoutMs: (tests.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
            maxOutputChars: MAX_OUTPUT_CHARS, signal: options.signal
        });
        const passed = result.exitCode === 0 && !result.timedOut;
        return { passed, exitCode: result.exitCode, timedOut: result.timedOut, output: passed ? undefined : result.output };
    } finally {
        rmSync(folder, { recursive: true, force: true });
    }
}
