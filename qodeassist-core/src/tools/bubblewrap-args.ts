import { lstat, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { qodeassistHome } from '../config/config-layers';
import { MANAGED_DIR_VARIABLE } from '../config/managed-policy';
import { isInside } from './program-resolver';

/**
 * The bubblewrap command line a sandboxed command runs under: the whole file system read-only,
 * the workspace roots writable, a private /tmp, its own PID namespace (no ancestor in /proc, and
 * the tree dies with it), and the places that hold keys covered.
 */

/** Isolation every sandboxed command gets, and the probe tests: no ancestor visible, no way back to our terminal, nothing left when we go. */
export const BUBBLEWRAP_ISOLATION: readonly string[] = [
    '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--new-session',
    // Run as root, bwrap would otherwise leave capabilities that can remount / writable.
    '--cap-drop', 'ALL'
];

export interface HiddenPath {
    path: string;
    /** A folder is covered by an empty tmpfs, a file by /dev/null. */
    kind: 'folder' | 'file';
}

export interface BubblewrapPlan {
    /** The workspace roots, real paths: writable inside. */
    writable: readonly string[];
    /** Existing places with keys, covered inside. */
    hidden: readonly HiddenPath[];
    /** The working folder, a real path. */
    cwd: string;
    network: boolean;
    /** Existing configuration places inside the workspace roots, read-only inside (see PROTECTED_IN_ROOT). */
    readOnly?: readonly string[];
}

/**
 * What a command may not change inside a writable root: what becomes code or configuration at the
 * user's next git command or start (git's config and hooks, QodeAssist's, the editors' and Claude's
 * settings, the ignore rules). The file tools ask before writing these; a command cannot be asked
 * about per file, so they are read-only to it.
 */
export const PROTECTED_IN_ROOT = ['.git/config', '.git/hooks', '.git/info', '.qodeassist', '.vscode', '.theia', '.claude', '.gitignore', '.qodeassistignore'];

/** The protected places that exist in these roots (a bind needs its source to exist). */
export async function existingProtectedPaths(roots: readonly string[]): Promise<string[]> {
    const candidates = roots.flatMap(root => PROTECTED_IN_ROOT.map(entry => join(root, entry)));
    // A link is left alone: what it leads to inside the workspace is no configuration place by itself.
    const found = await Promise.all(candidates.map(path => lstat(path).then(info => info.isSymbolicLink() ? undefined : path, () => undefined)));
    return found.filter((path): path is string => path !== undefined);
}

/** Folders below a home that hold credentials by convention (cloud CLIs, SSH, GPG, container registries, keyrings). */
const SECRET_FOLDERS = [
    '.qodeassist', '.ssh', '.aws', '.config/gcloud', '.azure', '.docker', '.kube', '.gnupg', '.config/gh', '.local/share/keyrings',
    // Theia's user settings may hold Theia AI's provider keys.
    '.theia'
];
/** Files below a home that hold tokens or passwords. */
const SECRET_FILES = ['.netrc', '.npmrc', '.pypirc', '.git-credentials', '.claude/.credentials.json', '.cargo/credentials.toml', '.cargo/credentials'];
/** A variable naming a file with a key (`ANTHROPIC_API_KEY_FILE`, `GOOGLE_APPLICATION_CREDENTIALS`): an absolute path there is hidden too. */
const KEY_FILE_VARIABLE = /(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)(_FILE)?$/i;

/** Pure: every place that may hold a key, whether or not it exists. */
export function secretPathCandidates(env: Readonly<Record<string, string | undefined>>, homes: readonly string[], uid?: number): string[] {
    const paths = new Set<string>();
    for (const home of homes.filter(Boolean)) {
        SECRET_FOLDERS.forEach(folder => paths.add(join(home, folder)));
        SECRET_FILES.forEach(file => paths.add(join(home, file)));
    }
    paths.add(join(qodeassistHome(env, homes[0] ?? homedir()), '.qodeassist'));
    const managed = env[MANAGED_DIR_VARIABLE]?.trim();
    if (managed) {
        paths.add(managed);
    }
    for (const [name, value] of Object.entries(env)) {
        if (value?.trim() && KEY_FILE_VARIABLE.test(name) && value.startsWith('/')) {
            paths.add(value.trim());
        }
    }
    // The session bus (Secret Service: the keyring QodeAssist keeps keys in), ssh-agent and gpg-agent sockets.
    const runtime = env.XDG_RUNTIME_DIR?.trim() || (uid !== undefined ? `/run/user/${uid}` : undefined);
    if (runtime?.startsWith('/')) {
        paths.add(runtime);
    }
    return [...paths];
}

/** The candidates that exist, each also under its real path (a link to the real folder must not leave it visible). */
export async function existingHiddenPaths(candidates: readonly string[]): Promise<HiddenPath[]> {
    const found: HiddenPath[] = [];
    const seen = new Set<string>();
    for (const candidate of candidates) {
        const info = await stat(candidate).catch(() => undefined);
        if (!info) {
            continue;
        }
        const kind = info.isDirectory() ? 'folder' : 'file';
        for (const path of [candidate, await realpath(candidate).catch(() => candidate)]) {
            if (!seen.has(path)) {
                seen.add(path);
                found.push({ path, kind });
            }
        }
    }
    return found;
}

/** The homes whose secret folders are hidden: the child's HOME and this process's. */
export function homesOf(env: Readonly<Record<string, string | undefined>>): string[] {
    return [...new Set([env.HOME?.trim(), homedir()].filter((home): home is string => !!home && home.startsWith('/')))];
}

/** Pure: bwrap's arguments for `program args` under `plan`. */
export function bubblewrapArgs(plan: BubblewrapPlan, program: string, args: readonly string[]): string[] {
    const argv = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', ...BUBBLEWRAP_ISOLATION];
    if (!plan.network) {
        argv.push('--unshare-net');
    }
    const cover = (hidden: HiddenPath) => argv.push(...(hidden.kind === 'folder' ? ['--tmpfs', hidden.path] : ['--ro-bind', '/dev/null', hidden.path]));
    // Under /tmp it is gone already, unless a root there holds it.
    const shown = plan.hidden.filter(hidden => !isInside('/tmp', hidden.path, 'linux') || plan.writable.some(root => isInside(root, hidden.path, 'linux')));
    // A root inside a covered folder (the user opened ~/.qodeassist) is bound after the cover: the root shows, its siblings stay hidden.
    const holdsRoot = (hidden: HiddenPath) => plan.writable.some(root => isInside(hidden.path, root, 'linux'));
    shown.filter(holdsRoot).forEach(cover);
    for (const root of plan.writable) {
        argv.push('--bind', root, root);
    }
    for (const path of plan.readOnly ?? []) {
        argv.push('--ro-bind', path, path);
    }
    shown.filter(hidden => !holdsRoot(hidden)).forEach(cover);
    argv.push('--chdir', plan.cwd, '--', program, ...args);
    return argv;
}
