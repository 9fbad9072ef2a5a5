import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { isAbsolute, posix, win32 } from 'node:path';
import { environmentValue } from './child-environment';

/**
 * Where a program name is looked up before a tool starts it. Written here rather than with
 * the `which` package because the workspace must be skipped, links included.
 */
export interface ProgramSearch {
    /** The PATH value to search (the child's). */
    path: string | undefined;
    /** Folders whose binaries are never picked up: a repository must not bring its own `git`. */
    workspaceRoots: readonly string[];
    /** Windows: the extensions a bare name may have (PATHEXT). */
    pathext?: string;
    platform?: NodeJS.Platform;
}

function pathApi(platform: NodeJS.Platform) {
    return platform === 'win32' ? win32 : posix;
}

/** Whether `child` is `parent` or below it (case-folded on Windows). */
export function isInside(parent: string, child: string, platform: NodeJS.Platform = process.platform): boolean {
    const api = pathApi(platform);
    const fold = (p: string) => platform === 'win32' ? p.toLowerCase() : p;
    const relative = api.relative(fold(api.resolve(parent)), fold(api.resolve(child)));
    return relative === '' || (!relative.startsWith('..') && !api.isAbsolute(relative));
}

async function realOrSelf(path: string): Promise<string> {
    return realpath(path).catch(() => path);
}

async function realRoots(roots: readonly string[]): Promise<string[]> {
    const real = await Promise.all(roots.map(realOrSelf));
    return [...roots, ...real];
}

/**
 * The PATH entries a lookup may use: absolute, and outside every workspace root. Relative
 * entries ('', '.', 'bin') would resolve against the cwd, which is inside the workspace.
 */
export async function trustedPathEntries(search: ProgramSearch): Promise<string[]> {
    const platform = search.platform ?? process.platform;
    const api = pathApi(platform);
    const roots = await realRoots(search.workspaceRoots);
    const entries: string[] = [];
    for (const raw of (search.path ?? '').split(api.delimiter)) {
        const entry = platform === 'win32' ? raw.replace(/^"(.*)"$/, '$1') : raw;
        if (!entry || !api.isAbsolute(entry)) {
            continue;
        }
        const real = await realOrSelf(entry);
        if (roots.some(root => isInside(root, entry, platform) || isInside(root, real, platform))) {
            continue;
        }
        if (!entries.includes(entry)) {
            entries.push(entry);
        }
    }
    return entries;
}

/** The PATH a child gets: the same trusted entries, so what it starts by name is found outside the workspace too. */
export async function containedPath(search: ProgramSearch): Promise<string> {
    return (await trustedPathEntries(search)).join(pathApi(search.platform ?? process.platform).delimiter);
}

/** The lookup for a child with this (scrubbed) environment: its PATH and PATHEXT, never inside `workspaceRoots`. */
export function programSearchFor(env: Readonly<Record<string, string>>, workspaceRoots: readonly string[], platform: NodeJS.Platform = process.platform): ProgramSearch {
    return { path: environmentValue(env, 'PATH', platform), pathext: environmentValue(env, 'PATHEXT', platform), platform, workspaceRoots };
}

/** The child looks programs up on the same trusted PATH as we did: its PATH variable (any case on Windows) is replaced. */
export async function containChildPath(env: Record<string, string>, search: ProgramSearch): Promise<void> {
    const name = Object.keys(env).find(candidate => candidate.toUpperCase() === 'PATH') ?? 'PATH';
    env[name] = await containedPath(search);
}

async function isExecutableFile(path: string, platform: NodeJS.Platform): Promise<boolean> {
    try {
        if (!(await stat(path)).isFile()) {
            return false;
        }
        if (platform !== 'win32') {
            await access(path, constants.X_OK);
        }
        return true;
    } catch {
        return false;
    }
}

/**
 * The absolute path of a bare program name on the trusted PATH entries, or undefined.
 * A candidate that is a link into the workspace is skipped as well.
 */
export async function resolveProgram(program: string, search: ProgramSearch): Promise<string | undefined> {
    const platform = search.platform ?? process.platform;
    const api = pathApi(platform);
    if (!program || program.includes('/') || (platform === 'win32' && program.includes('\\'))) {
        return undefined;
    }
    const extensions = platform === 'win32'
        ? (search.pathext || '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean).map(ext => ext.toLowerCase())
        : [];
    const names = platform !== 'win32' ? [program]
        : extensions.includes(api.extname(program).toLowerCase()) ? [program] : extensions.map(ext => program + ext);
    const roots = await realRoots(search.workspaceRoots);
    for (const entry of await trustedPathEntries(search)) {
        for (const name of names) {
            const candidate = api.join(entry, name);
            if (await isExecutableFile(candidate, platform)) {
                const real = await realOrSelf(candidate);
                if (!roots.some(root => isInside(root, real, platform))) {
                    return candidate;
                }
            }
        }
    }
    return undefined;
}

export function programNotFoundMessage(program: string): string {
    return `${program} was not found outside the workspace on PATH (relative PATH entries and folders inside the workspace are skipped). Install it, or add the folder that holds it to PATH.`;
}

/** Where a command's program really is, and whether it (or the path that names it) lies in the workspace. */
export interface LocatedProgram {
    /** The bare name found on the trusted PATH, or the absolute path given; undefined: neither. */
    found: string | undefined;
    /** `found` with every link followed; undefined when it does not exist. */
    real: string | undefined;
    /** The program really lies inside a workspace root (links followed, the roots' own included). */
    realInWorkspace: boolean;
    /** The path that names it lies inside a workspace root (a link there to a program outside). */
    foundInWorkspace: boolean;
}

/**
 * Locates the program a command names — a bare name on the trusted PATH, else an absolute path
 * (a relative one is never looked up) — and judges it by what it really is: whoever starts
 * processes (tools' terminals, ACP agents, a provider's [launch]) refuses one inside the workspace.
 */
export async function locateProgram(command: string, bare: boolean, search: ProgramSearch, roots: readonly string[], platform: NodeJS.Platform = process.platform): Promise<LocatedProgram> {
    const found = bare ? await resolveProgram(command, search) : isAbsolute(command) ? command : undefined;
    const real = found === undefined ? undefined : await realpath(found).catch(() => undefined);
    const everyRoot = await realRoots(roots);
    const inside = (path: string | undefined) => path !== undefined && everyRoot.some(root => isInside(root, path, platform));
    return { found, real, realInWorkspace: inside(real), foundInWorkspace: inside(found) };
}

