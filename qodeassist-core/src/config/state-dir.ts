import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { sharedFolderProblem } from './key-files';

/** The variable naming the folder that stands for the user's home for QodeAssist (a persistent volume where the home does not last). */
export const STATE_DIR_VARIABLE = 'QODEASSIST_STATE_DIR';

/** The spend ledger's file name, in the state dir's (or home's) `.qodeassist`. */
export const SPEND_FILE = 'spend.json';

/** Where the daily spend limit counts: `<state dir or home>/.qodeassist/spend.json`, for the IDE and the bench alike (whatever --config-dir says). */
export function spendLedgerPath(home: string): string {
    return join(home, '.qodeassist', SPEND_FILE);
}

/** Why a state dir may not stand for the user's home, and what to do: for a notice that names both paths. */
export interface StateDirProblem {
    message: string;
    fix: string;
}

function real(path: string): string {
    try {
        return realpathSync(path);
    } catch {
        return resolve(path);
    }
}

/** Whether `inner` is `outer` or lies below it. */
function within(inner: string, outer: string): boolean {
    const path = relative(outer, inner);
    return path === '' || (!path.startsWith('..') && !isAbsolute(path));
}

/**
 * Why the state dir (QODEASSIST_STATE_DIR) is no place for the user's trusted files with these
 * workspace folders open: it lies inside one (a repository that ships that folder would become
 * the user's own configuration — agents, MCP servers, skills — in an untrusted workspace), or
 * someone else could write it (another owner, group- or world-writable: a shared volume).
 * Undefined when it is fine. Links are resolved first, so a link into the workspace counts.
 */
export function stateDirProblem(
    stateDir: string, workspaceRoots: readonly string[], variable = STATE_DIR_VARIABLE,
    platform: NodeJS.Platform = process.platform, uid = process.getuid?.()
): StateDirProblem | undefined {
    const state = real(stateDir);
    for (const root of workspaceRoots) {
        if (within(state, real(root))) {
            return {
                message: `${variable} (${stateDir}) lies inside the workspace ${root}, so its user configuration is not read: a repository that ships that folder would become your own trusted configuration`,
                fix: `point ${variable} at a folder outside every workspace (e.g. a volume mounted at /home/theia/.qodeassist-state), then reload`
            };
        }
    }
    const shared = sharedFolderProblem(state, {}, platform, uid) ?? sharedFolderProblem(join(state, '.qodeassist'), {}, platform, uid);
    if (shared) {
        return {
            message: `${variable} (${stateDir}) is not yours alone: ${shared}, so its user configuration is not read (others could write it)`,
            fix: `make ${stateDir} and its .qodeassist owned by you and writable by you only (chmod 700), then reload`
        };
    }
    return undefined;
}

/**
 * The problem of using `home` as the user's home with this workspace open, when `home` is the
 * state dir the environment names (the user's real home is never refused: opening it as a
 * workspace is the user's own doing). Undefined when it may be used.
 */
export function stateDirRefusal(home: string, openWorkspace: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env): StateDirProblem | undefined {
    const stateDir = env[STATE_DIR_VARIABLE]?.trim();
    return stateDir && resolve(stateDir) === resolve(home) ? stateDirProblem(home, openWorkspace ? [openWorkspace] : [], STATE_DIR_VARIABLE) : undefined;
}
