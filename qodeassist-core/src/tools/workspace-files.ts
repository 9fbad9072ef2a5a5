import ignore = require('ignore');
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A path the model gave that cannot be used: the message says why and what to do instead. */
export class ToolInputError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'ToolInputError';
    }
}

export interface ResolvedPath {
    absolute: string;
    /** Relative to its root, `/`-separated. */
    relative: string;
    root: string;
}

export interface WorkspaceFilesOptions {
    /** Let tools read and write outside the workspace roots (off unless the user turned it on). */
    allowOutside?: boolean;
    /** Apply each root's .gitignore too (always .qodeassistignore). */
    useGitignore?: boolean;
}

/** Always left out of listings and searches, whatever the ignore files say. */
const ALWAYS_IGNORED = ['.git/', 'node_modules/'];

/**
 * The workspace as tools see it: every path is resolved against the roots, and `..`,
 * absolute paths outside, NUL bytes and symlinks leading out of a root are refused unless
 * the user allowed outside access. `.qodeassistignore` (gitignore syntax) applies to every
 * tool; so does `.gitignore` when enabled.
 */
export class WorkspaceFiles {
    readonly roots: string[];
    private readonly ignores = new Map<string, ignore.Ignore>();

    constructor(roots: readonly string[], private readonly options: WorkspaceFilesOptions = {}) {
        this.roots = roots.map(root => realpathSync(resolve(root)));
    }

    /** Resolves a path the model gave (relative to the first root, absolute, or a file:// URI). */
    resolve(input: string): ResolvedPath {
        if (typeof input !== 'string' || input.trim() === '') {
            throw new ToolInputError('The path is empty. Give a path relative to the workspace, e.g. "src/main.ts".');
        }
        if (input.includes('\0')) {
            throw new ToolInputError('The path contains a NUL byte, which no file name can.');
        }
        let path = input.trim();
        if (path.startsWith('file://')) {
            try {
                path = fileURLToPath(path);
            } catch {
                throw new ToolInputError(`"${input}" is not a valid file URI.`);
            }
        }
        path = path.replace(/\\/g, '/');
        const candidate = isAbsolute(path) ? resolve(path) : resolve(this.roots[0], path);
        const root = this.roots.find(r => isInside(r, candidate));
        if (!root) {
            return this.outside(input, candidate);
        }
        // Follow symlinks as far as the path exists: a link may lead out of the root.
        const real = realExisting(candidate);
        const realRoot = this.roots.find(r => isInside(r, real));
        if (!realRoot) {
            return this.outside(input, real, true);
        }
        return { absolute: candidate, root, relative: toPosix(relative(root, candidate)) };
    }

    /** Whether ignore rules hide this path (listing, search, reading and writing all respect it). */
    isIgnored(path: ResolvedPath, isDirectory = false): boolean {
        if (!path.relative) {
            return false;
        }
        const rules = this.rulesFor(path.root);
        return rules.ignores(isDirectory ? `${path.relative}/` : path.relative);
    }

    /** Throws when ignore rules hide the path, naming the rule file. */
    assertNotIgnored(path: ResolvedPath): void {
        if (this.isIgnored(path)) {
            throw new ToolInputError(`"${path.relative}" is excluded by the workspace's ignore rules (.qodeassistignore${this.options.useGitignore ? ' or .gitignore' : ''}), so tools cannot use it.`);
        }
    }

    /** Drops cached ignore rules, e.g. after .qodeassistignore changed. */
    refresh(): void {
        this.ignores.clear();
    }

    private rulesFor(root: string): ignore.Ignore {
        const cached = this.ignores.get(root);
        if (cached) {
            return cached;
        }
        const rules = ignore().add(ALWAYS_IGNORED);
        for (const file of ['.qodeassistignore', ...(this.options.useGitignore ? ['.gitignore'] : [])]) {
            const path = join(root, file);
            if (existsSync(path)) {
                rules.add(readFileSync(path, 'utf8'));
            }
        }
        this.ignores.set(root, rules);
        return rules;
    }

    private outside(input: string, absolute: string, viaLink = false): ResolvedPath {
        if (this.options.allowOutside) {
            return { absolute, root: dirname(absolute), relative: absolute };
        }
        throw new ToolInputError(`"${input}" ${viaLink ? 'leads through a symbolic link to' : 'is'} a place outside the workspace (${this.roots.join(', ')}). `
            + 'Use a path inside the workspace; reading or writing elsewhere needs the user to allow outside access.');
    }
}

function isInside(root: string, path: string): boolean {
    const rel = relative(root, path);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

/** The real path of the longest existing prefix, with the rest appended. */
function realExisting(path: string): string {
    let existing = path;
    const rest: string[] = [];
    while (!existsSync(existing)) {
        const parent = dirname(existing);
        if (parent === existing) {
            return path;
        }
        rest.unshift(existing.slice(parent.length + 1));
        existing = parent;
    }
    return join(realpathSync(existing), ...rest);
}

function toPosix(path: string): string {
    return path.split(sep).join('/');
}
