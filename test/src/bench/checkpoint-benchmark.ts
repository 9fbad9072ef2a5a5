import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { WorkspaceCheckpoints } from '@qodeassist/core';
import { median } from './statistics';

const run = promisify(execFile);

export const CHECKPOINT_FILES = 10_000;
const FOLDERS = 100;
const ROUNDS = 5;

export interface CheckpointRow {
    label: string;
    checkpointMs: number;
    gitMs: number;
}

export interface CheckpointResult {
    rows: CheckpointRow[];
    restoreMs: number;
    shadowKiB: number;
    workspaceKiB: number;
}

/** A generated source tree: FOLDERS folders of text files, 1 to 4 KiB each. */
function generate(root: string): void {
    for (let folder = 0; folder < FOLDERS; folder++) {
        mkdirSync(join(root, `module-${folder}`, 'src'), { recursive: true });
        for (let file = 0; file < CHECKPOINT_FILES / FOLDERS; file++) {
            const lines = 20 + ((folder * 31 + file * 17) % 60);
            writeFileSync(join(root, `module-${folder}`, 'src', `file-${file}.ts`),
                Array.from({ length: lines }, (_, line) => `export const value${line} = ${folder * 1000 + file} + ${line}; // module ${folder}, file ${file}`).join('\n') + '\n');
        }
    }
}

/** A few edits as a turn makes them: five files changed, two created, one deleted. */
function edit(root: string, round: number): void {
    for (let index = 0; index < 5; index++) {
        writeFileSync(join(root, `module-${(round * 7 + index * 13) % FOLDERS}`, 'src', `file-${index}.ts`), `export const edited = ${round};\n`);
    }
    writeFileSync(join(root, `module-${round % FOLDERS}`, 'src', `created-${round}-a.ts`), `export const a = ${round};\n`);
    writeFileSync(join(root, `module-${(round + 1) % FOLDERS}`, 'src', `created-${round}-b.ts`), `export const b = ${round};\n`);
    unlinkSync(join(root, `module-${(round + 50) % FOLDERS}`, 'src', `file-${90 + round}.ts`));
}

async function timed(work: () => Promise<unknown>): Promise<number> {
    const start = performance.now();
    await work();
    return performance.now() - start;
}

async function kib(path: string): Promise<number> {
    const { stdout } = await run('du', ['-sk', path]);
    return Number(stdout.split(/\s/)[0]);
}

/**
 * A checkpoint of a generated 10,000-file workspace (the first, then after a turn's edits) against
 * `git add -A && git commit` of the same tree in a plain repository, in the same run.
 */
export async function measureCheckpoints(): Promise<CheckpointResult> {
    const base = mkdtempSync(join(tmpdir(), 'qodeassist-checkpoint-bench-'));
    try {
        const workspace = join(base, 'workspace');
        mkdirSync(workspace);
        generate(workspace);
        // The plain repository lives in the tree itself (checkpoints leave `.git/` out); its config has nothing but an author.
        const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
        // No automatic gc: it would run detached after the first commit's 10,000 loose objects, outside what is timed.
        const git = (...args: string[]) => run('git', ['-c', 'gc.auto=0', '-c', 'maintenance.auto=false', ...args], { cwd: workspace, env: gitEnv, maxBuffer: 64 * 1024 * 1024 });
        await git('init', '-q');
        const plainCommit = async () => {
            await git('add', '-A');
            await git('commit', '-q', '--allow-empty', '-m', 'bench');
        };
        const chat = new WorkspaceCheckpoints(join(base, 'state', '.qodeassist', 'checkpoints')).forChat(workspace, 'bench');
        // Both read the tree once before anything is timed: the page cache holds it for both.
        await git('status', '--porcelain');
        const firstGit = await timed(plainCommit);
        const firstCheckpoint = await timed(() => chat.beforeTurn(0));
        const unchangedGit: number[] = [];
        const unchangedCheckpoint: number[] = [];
        const editedGit: number[] = [];
        const editedCheckpoint: number[] = [];
        for (let round = 1; round <= ROUNDS; round++) {
            unchangedGit.push(await timed(plainCommit));
            unchangedCheckpoint.push(await timed(() => chat.beforeTurn(round)));
            edit(workspace, round);
            editedGit.push(await timed(plainCommit));
            editedCheckpoint.push(await timed(() => chat.beforeTurn(round)));
        }
        const restoreMs = await timed(() => chat.restore(1));
        return {
            rows: [
                { label: `first (${CHECKPOINT_FILES.toLocaleString('en')} files hashed)`, checkpointMs: firstCheckpoint, gitMs: firstGit },
                { label: `incremental, nothing changed (median of ${ROUNDS})`, checkpointMs: median(unchangedCheckpoint), gitMs: median(unchangedGit) },
                { label: `incremental, 5 edited + 2 created + 1 deleted (median of ${ROUNDS})`, checkpointMs: median(editedCheckpoint), gitMs: median(editedGit) }
            ],
            restoreMs,
            shadowKiB: await kib(join(base, 'state')),
            workspaceKiB: await kib(workspace) - await kib(join(workspace, '.git'))
        };
    } finally {
        rmSync(base, { recursive: true, force: true });
    }
}

export function checkpointTable(result: CheckpointResult): string {
    const ms = (value: number) => `${value.toFixed(0)} ms`;
    return [
        '| checkpoint | QodeAssist checkpoint | `git add -A && git commit` | ratio |',
        '|---|---:|---:|---:|',
        ...result.rows.map(row => `| ${row.label} | ${ms(row.checkpointMs)} | ${ms(row.gitMs)} | ${(row.checkpointMs / row.gitMs).toFixed(2)}× |`),
        '',
        `Restore across the edits of ${ROUNDS - 1} turns (the checkpoint taken before the restore included): ${ms(result.restoreMs)}.`,
        `Shadow repository after ${2 * ROUNDS + 2} checkpoints: ${(result.shadowKiB / 1024).toFixed(1)} MiB for a workspace of ${(result.workspaceKiB / 1024).toFixed(1)} MiB on disk.`
    ].join('\n');
}
