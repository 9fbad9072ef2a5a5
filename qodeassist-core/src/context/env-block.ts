import { constants } from 'node:fs';
import { FileHandle, lstat, open, realpath } from 'node:fs/promises';
import { platform, release } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { languageOfPath } from './languages';

/** The system layer that carries the environment block (placed after `agent.system`, before `skills.catalog`). */
export const ENV_PROJECT_LAYER = 'env.project';

/** Where the assistant is working: plain facts, gathered by `environmentFacts` or by a host. */
export interface EnvFacts {
    workspaceName: string;
    /** Absolute path of the workspace root; left out where no absolute path may go (completion). */
    workspaceRoot?: string;
    /** Readable OS name, e.g. `Linux`, `macOS 15`, `Windows 11`. */
    os: string;
    /** The active editor's file, workspace-relative when inside the workspace. */
    activeFile?: string;
    language?: string;
    buildCommand?: string;
    /** The checked-out branch, or `detached at <short sha>`. */
    branch?: string;
}

/**
 * The environment block, one fact a line: workspace, OS, git branch, build command, then the
 * active file as `formatFile` writes it. Goes into every request, so it stays a few dozen tokens.
 */
export function formatProject(facts: EnvFacts): string {
    const root = facts.workspaceRoot?.trim() ? ` (${oneLine(facts.workspaceRoot)})` : '';
    const lines = [`Workspace: ${oneLine(facts.workspaceName)}${root}`, `OS: ${oneLine(facts.os)}`];
    if (facts.branch?.trim()) {
        lines.push(`Git branch: ${oneLine(facts.branch)}`);
    }
    if (facts.buildCommand?.trim()) {
        lines.push(`Build command: ${oneLine(facts.buildCommand)}`);
    }
    const file = formatFile(facts);
    if (file) {
        lines.push(file);
    }
    return lines.join('\n');
}

/** The active-file line (`Active file: src/a.ts (typescript)`), the same in chat, completion and refactor; empty without a file. */
export function formatFile(facts: Pick<EnvFacts, 'activeFile' | 'language'>): string {
    if (!facts.activeFile?.trim()) {
        return '';
    }
    return `Active file: ${oneLine(facts.activeFile)}${facts.language?.trim() ? ` (${oneLine(facts.language)})` : ''}`;
}

const MAX_VALUE = 300;

/**
 * A fact is one line of plain text: a file or branch name must not be able to start lines of its
 * own in the prompt, nor hide text behind invisible or odd spacing characters.
 */
function oneLine(value: string): string {
    const flat = value.replace(/[\p{Cc}\p{Cf}\p{Z}]+/gu, ' ').trim();
    return flat.length > MAX_VALUE ? `${flat.slice(0, MAX_VALUE - 1)}…` : flat;
}

export interface EnvironmentInput {
    /** The workspace root. */
    workspace: string;
    /** The active editor's file, absolute or workspace-relative. */
    activeFile?: string;
    /** The active file's language; by its extension when absent. */
    language?: string;
    buildCommand?: string;
    /** This process's when absent (`node:os` platform and release). */
    platform?: NodeJS.Platform;
    release?: string;
}

/**
 * Gathers the facts of the environment block. Reads a few small files; never runs anything.
 * `branchOf` reads the branch (a host may reuse a recent answer: see QodeAssistRuntime.environment).
 */
export async function environmentFacts(input: EnvironmentInput, branchOf: (workspace: string) => Promise<string | undefined> = gitBranch): Promise<EnvFacts> {
    const root = resolve(input.workspace);
    const activeFile = input.activeFile?.trim() ? workspaceRelative(root, input.activeFile) : undefined;
    const branch = await branchOf(root);
    return {
        workspaceName: basename(root) || root,
        workspaceRoot: root,
        os: osName(input.platform ?? platform(), input.release ?? release()),
        ...(activeFile ? { activeFile, language: input.language?.trim() || languageOfPath(activeFile) } : {}),
        ...(input.buildCommand?.trim() ? { buildCommand: input.buildCommand.trim() } : {}),
        ...(branch ? { branch } : {})
    };
}

/** The OS as people name it. Linux's kernel release says nothing useful to a model, so it is left out. */
export function osName(os: NodeJS.Platform, osRelease: string): string {
    const [major = NaN, , build = NaN] = osRelease.split('.').map(part => parseInt(part, 10));
    switch (os) {
        case 'linux': return 'Linux';
        case 'win32':
            // Windows 11 still reports 10.0, told apart by its build number.
            return major === 10 ? `Windows ${build >= 22000 ? 11 : 10}` : 'Windows';
        case 'darwin':
            // Darwin 20–24 are macOS 11–15; from Darwin 25 (macOS 26) the version is the year's.
            return major >= 25 ? `macOS ${major + 1}` : major >= 20 ? `macOS ${major - 9}` : major >= 12 ? `macOS 10.${major - 4}` : 'macOS';
        case 'freebsd': return 'FreeBSD';
        case 'openbsd': return 'OpenBSD';
        case 'netbsd': return 'NetBSD';
        case 'sunos': return 'SunOS';
        case 'aix': return 'AIX';
        case 'android': return 'Android';
        default: return os;
    }
}

function workspaceRelative(root: string, file: string): string {
    const absolute = resolve(root, file);
    const path = relative(root, absolute);
    return !path || path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path) ? absolute : path.split(sep).join('/');
}

/** HEAD and a `.git` file are a line or two; anything bigger is not one. */
const SMALL_FILE = 4096;
/** Folders looked at on the way up from the workspace to the repository root. */
const MAX_DEPTH = 64;

/**
 * The branch checked out in the repository holding `workspace`, read from `.git/HEAD` (through a
 * worktree's or submodule's `gitdir:` file): `ref: refs/heads/<name>` is the name, a detached HEAD
 * `detached at <short sha>`. Never runs git — a repository's config can make git run programs —
 * reads `.git`, HEAD and `gitdir` only as small regular files (never through a link), and follows a
 * `gitdir:` only into a git folder.
 * Undefined outside a repository or when HEAD is anything else (e.g. a reftable repository's stub).
 */
export async function gitBranch(workspace: string): Promise<string | undefined> {
    let dir = resolve(workspace);
    for (let depth = 0; depth < MAX_DEPTH; depth++) {
        const dotGit = join(dir, '.git');
        const info = await lstat(dotGit).catch(() => undefined);
        if (info) {
            const gitDir = info.isDirectory() ? dotGit : info.isFile() ? await linkedGitDir(dotGit) : undefined;
            return gitDir ? headName(gitDir) : undefined;
        }
        const parent = dirname(dir);
        if (parent === dir) {
            return undefined;
        }
        dir = parent;
    }
    return undefined;
}

/**
 * The git folder a `.git` file names (`gitdir: <path>`), if it is one: a folder named `.git` or
 * `*.git` or inside one (`.git/worktrees/<name>`, `.git/modules/<name>`, `repo.git/worktrees/<name>`),
 * and, for a worktree, one whose `gitdir` file points back at this `.git` file.
 */
async function linkedGitDir(dotGit: string): Promise<string | undefined> {
    const match = /^gitdir: *([^\r\n]+?)\s*$/.exec((await readSmallFile(dotGit))?.trim() ?? '');
    // A UNC or device path (`\\host\share`, `//host/share`, `\\?\…`) would make Windows connect to another machine just to look.
    if (!match || /^[\\/]{2}/.test(match[1])) {
        return undefined;
    }
    const target = await realpath(resolve(dirname(dotGit), match[1])).catch(() => undefined);
    if (!target || !target.split(sep).some(part => part.endsWith('.git'))) {
        return undefined;
    }
    const backLink = await readSmallFile(join(target, 'gitdir'));
    if (backLink !== undefined) {
        const [back, self] = await Promise.all([realpath(resolve(target, backLink.trim())).catch(() => undefined), realpath(dotGit).catch(() => undefined)]);
        if (!back || back !== self) {
            return undefined;
        }
    }
    return target;
}

async function headName(gitDir: string): Promise<string | undefined> {
    const head = (await readSmallFile(join(gitDir, 'HEAD')))?.trim();
    if (!head) {
        return undefined;
    }
    const ref = /^ref: *refs\/heads\/([^\r\n]+)$/.exec(head);
    if (ref) {
        return isBranchName(ref[1]) ? ref[1] : undefined;
    }
    return /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(head) ? `detached at ${head.slice(0, 7)}` : undefined;
}

/** A name git itself would accept for a branch (the `check-ref-format` rules). */
function isBranchName(name: string): boolean {
    // Stricter than git: a branch name is repository text in the system prompt, so only the characters names are made of.
    return name.length <= 100 && name !== '@' && /^[\p{L}\p{N}._/+#-]+$/u.test(name) && !/[\p{Cc} ~^:?*[\\]|\.\.|@\{|\/\/|[/.]$/u.test(name)
        && name.split('/').every(part => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'));
}

/** A regular file's text, at most `SMALL_FILE` bytes; undefined for a link, a folder, a device, a pipe or a bigger file. */
async function readSmallFile(path: string): Promise<string | undefined> {
    let handle: FileHandle | undefined;
    try {
        const info = await lstat(path);
        if (!info.isFile() || info.size > SMALL_FILE) {
            return undefined;
        }
        // No link followed and no wait on a pipe swapped in since the lstat (POSIX; Windows has neither flag).
        handle = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
        const opened = await handle.stat();
        if (!opened.isFile() || opened.size > SMALL_FILE) {
            return undefined;
        }
        const buffer = Buffer.alloc(SMALL_FILE);
        const { bytesRead } = await handle.read(buffer, 0, SMALL_FILE, 0);
        return buffer.subarray(0, bytesRead).toString('utf8');
    } catch {
        return undefined;
    } finally {
        await handle?.close();
    }
}
