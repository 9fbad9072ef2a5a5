import ignore = require('ignore');
import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
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
    /** Relative to its root, `/`-separated (the absolute path for a place outside the workspace). */
    relative: string;
    root: string;
    /**
     * Only when the path passes through symbolic links: each link's own location, then the real
     * path they lead to (all absolute). Ignore rules and protection apply to every one of them.
     */
    through?: readonly string[];
}

export interface WorkspaceFilesOptions {
    /** Let tools read and write outside the workspace roots (off unless the user turned it on). */
    allowOutside?: boolean;
    /** Apply the .gitignore files too (always .qodeassistignore). */
    useGitignore?: boolean;
}

/** Always left out of listings and searches, whatever the ignore files say (ripgrep gets the same two globs). */
const ALWAYS_IGNORED = ignore().add(['.git', 'node_modules']);

/**
 * Names that configure the IDE, the agent or the ignore rules themselves: a write to a path with
 * such a segment asks the user every time. At any depth, because a nested ignore file changes the
 * rules of its folder and a nested `.git` holds hooks.
 */
const PROTECTED_NAMES = new Set(['.qodeassist', '.theia', '.vscode', '.claude', '.git', '.gitignore', '.qodeassistignore']);

/** One ignore file: its kind (decided apart from the other kind), the depth of its folder, its rules. */
interface RuleFile {
    kind: string;
    depth: number;
    rules: ignore.Ignore;
}

/** More links than this on one path is a loop (Linux gives up at 40 too). */
const MAX_LINKS = 40;

/**
 * The workspace as tools see it: every path is resolved against the roots, and `..`,
 * absolute paths outside, NUL bytes, dangling links and links leading out of a root are
 * refused unless the user allowed outside access (dangling links always are).
 *
 * Ignore rules: `.qodeassistignore` (gitignore syntax) in every folder applies to every tool;
 * so do the `.gitignore` files when enabled — nested as git and ripgrep read them, the deepest
 * matching rule deciding. The two kinds are decided apart, so a `.gitignore` negation cannot
 * bring back what `.qodeassistignore` hides. Rules apply to the path as given, to every link
 * on it and to its real target; a place outside the workspace has no rules of its own.
 * (ripgrep reads only the root `.qodeassistignore`; the search checks each of its hits here, so a
 * nested file hides as much with either engine, but a nested `!` cannot re-include for ripgrep.)
 */
export class WorkspaceFiles {
    readonly roots: string[];
    /** The rule files that apply in a folder, its own and its parents', by `root \0 relative folder`. */
    private readonly stacks = new Map<string, readonly RuleFile[]>();
    /** Whether each folder seen is ignored, by `root \0 relative`. */
    private readonly folders = new Map<string, boolean>();

    constructor(roots: readonly string[], private readonly options: WorkspaceFilesOptions = {}) {
        this.roots = roots.map(root => realpathSync(resolve(root)));
    }

    /** Whether `.gitignore` files apply (the ripgrep search mirrors it). */
    get usesGitignore(): boolean {
        return this.options.useGitignore === true;
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
        if (!root && !this.options.allowOutside) {
            throw this.outsideError(input, false);
        }
        const trace = traceLinks(candidate);
        if (trace.dangling) {
            throw new ToolInputError(`"${input}" goes through a symbolic link whose target does not exist (or that loops): ${trace.dangling}. `
                + 'Tools do not follow such links; use the real path of an existing file.');
        }
        if (!this.options.allowOutside && !this.roots.some(r => isInside(r, trace.real))) {
            throw this.outsideError(input, true);
        }
        const through = trace.links.length > 0 ? { through: [...trace.links, trace.real] } : {};
        return root
            ? { absolute: candidate, root, relative: toPosix(relative(root, candidate)), ...through }
            : { absolute: candidate, root: dirname(candidate), relative: candidate, ...through };
    }

    /** Where the path really is, its links followed: the place to list from or write to. */
    real(path: ResolvedPath): ResolvedPath {
        const real = path.through?.at(-1);
        return real === undefined ? path : this.locate(real);
    }

    /**
     * Checks a path again just before writing it: it must still resolve to the same real place,
     * still inside and not ignored. A link swapped in since the first check is refused, not followed.
     * Returns the real path to write.
     */
    recheck(path: ResolvedPath): string {
        return this.recheckForWrite(path).target;
    }

    /**
     * recheck, and from the same resolution the protected place the write really reaches: the
     * decision to ask is made on the path written, not on one resolved before a question.
     */
    recheckForWrite(path: ResolvedPath): { target: string; protectedPath?: string } {
        const again = this.resolve(path.absolute);
        this.assertNotIgnored(again);
        const before = this.real(path).absolute;
        const now = this.real(again).absolute;
        if (before !== now) {
            throw new ToolInputError(`"${path.relative}" changed while the tool ran: it now leads to ${now} instead of ${before}. Nothing was written.`);
        }
        const protectedPath = this.protectedLocation(again);
        return protectedPath === undefined ? { target: now } : { target: now, protectedPath };
    }

    /** Whether ignore rules hide this path, a link on it or its target (listing, search, reading and writing all respect it). */
    isIgnored(path: ResolvedPath, isDirectory = false): boolean {
        return this.ignoredLocation(path, isDirectory) !== undefined;
    }

    /** Throws when ignore rules hide the path, naming the rule files and, for a link, what it leads to. */
    assertNotIgnored(path: ResolvedPath): void {
        const hidden = this.ignoredLocation(path, isDirectoryOnDisk(path.absolute));
        if (hidden !== undefined) {
            const via = hidden === path.relative ? '' : ` leads through a symbolic link to "${hidden}", which`;
            throw new ToolInputError(`"${path.relative}"${via} is excluded by the workspace's ignore rules (.qodeassistignore${this.usesGitignore ? ' or .gitignore' : ''}), so tools cannot use it.`);
        }
    }

    /**
     * The protected place a write to this path would change (configuration or ignore rules,
     * also as a link's target), as the user should see it; undefined for an ordinary path.
     */
    protectedLocation(path: ResolvedPath): string | undefined {
        const locations = [path, ...(path.through ?? []).map(place => this.locate(place))];
        return locations.find(place => {
            const segments = this.roots.includes(place.root) ? place.relative.split('/') : place.absolute.split(sep);
            // Case and trailing dots or spaces folded: macOS and Windows open `.VSCODE\tasks.json.` as the same file.
            return segments.some(segment => PROTECTED_NAMES.has(segment.toLowerCase().replace(/[. ]+$/, '') || segment));
        })?.relative;
    }

    /** Drops cached ignore rules, e.g. after an ignore file changed. */
    refresh(): void {
        this.stacks.clear();
        this.folders.clear();
    }

    private ignoredLocation(path: ResolvedPath, isDirectory: boolean): string | undefined {
        if (this.ignoredAt(path.root, path.relative, isDirectory)) {
            return path.relative;
        }
        const through = path.through ?? [];
        for (const [index, place] of through.entries()) {
            const found = this.locate(place);
            // A link itself is a file to the rules; its final target may be a folder.
            const folder = index === through.length - 1 && (isDirectory || isDirectoryOnDisk(place));
            if (this.ignoredAt(found.root, found.relative, folder)) {
                return found.relative;
            }
        }
        return undefined;
    }

    private ignoredAt(root: string, rel: string, isDirectory: boolean): boolean {
        if (!rel || !this.roots.includes(root)) {
            return false;
        }
        const parts = rel.split('/');
        for (let depth = 1; depth < parts.length; depth++) {
            if (this.folderIgnored(root, parts.slice(0, depth))) {
                return true;
            }
        }
        return this.decide(root, parts, isDirectory);
    }

    /** A folder's decision, cached: the walk asks it for every file below. */
    private folderIgnored(root: string, parts: string[]): boolean {
        const key = `${root}\0${parts.join('/')}`;
        let ignored = this.folders.get(key);
        if (ignored === undefined) {
            ignored = this.decide(root, parts, true);
            this.folders.set(key, ignored);
        }
        return ignored;
    }

    /** One path (its folders already allowed) against the rule files of every folder above it: the deepest matching rule wins, per kind. */
    private decide(root: string, parts: string[], isDirectory: boolean): boolean {
        const slash = isDirectory ? '/' : '';
        if (ALWAYS_IGNORED.ignores(parts.join('/') + slash)) {
            return true;
        }
        const decided = new Map<string, boolean>();
        for (const file of this.stackFor(root, parts.slice(0, -1))) {
            const result = file.rules.test(parts.slice(file.depth).join('/') + slash);
            if (result.ignored || result.unignored) {
                decided.set(file.kind, result.ignored);
            }
        }
        return [...decided.values()].some(ignored => ignored);
    }

    /** The rule files of a folder and of every folder above it, shallowest first; read once per folder. */
    private stackFor(root: string, folder: string[]): readonly RuleFile[] {
        const key = `${root}\0${folder.join('/')}`;
        let stack = this.stacks.get(key);
        if (stack === undefined) {
            const above = folder.length > 0 ? this.stackFor(root, folder.slice(0, -1)) : [];
            const own: RuleFile[] = [];
            for (const kind of ['.qodeassistignore', ...(this.usesGitignore ? ['.gitignore'] : [])]) {
                const file = join(root, ...folder, kind);
                if (existsSync(file)) {
                    own.push({ kind, depth: folder.length, rules: ignore().add(readFileSync(file, 'utf8')) });
                }
            }
            stack = own.length > 0 ? [...above, ...own] : above;
            this.stacks.set(key, stack);
        }
        return stack;
    }

    /** An absolute path as a ResolvedPath: relative to the root holding it, or outside. */
    private locate(absolute: string): ResolvedPath {
        const root = this.roots.find(r => isInside(r, absolute));
        return root ? { absolute, root, relative: toPosix(relative(root, absolute)) } : { absolute, root: dirname(absolute), relative: absolute };
    }

    private outsideError(input: string, viaLink: boolean): ToolInputError {
        return new ToolInputError(`"${input}" ${viaLink ? 'leads through a symbolic link to' : 'is'} a place outside the workspace (${this.roots.join(', ')}). `
            + 'Use a path inside the workspace; reading or writing elsewhere needs the user to allow outside access.');
    }
}

function isInside(root: string, path: string): boolean {
    const rel = relative(root, path);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

function isDirectoryOnDisk(path: string): boolean {
    try {
        return statSync(path).isDirectory();
    } catch {
        return false;
    }
}

/**
 * Resolves an absolute, normalized path one segment at a time, as the OS does, recording every
 * symbolic link on the way; the part that does not exist yet is appended as it is. `dangling`
 * names a link whose target is missing or that loops.
 */
function traceLinks(path: string): { real: string; links: string[]; dangling?: string } {
    const links: string[] = [];
    let current = parse(path).root;
    const pending = segments(path.slice(current.length));
    while (pending.length > 0) {
        const part = pending.shift()!;
        if (part === '.') {
            continue;
        }
        if (part === '..') {
            current = dirname(current);
            continue;
        }
        const next = join(current, part);
        let isLink: boolean;
        try {
            isLink = lstatSync(next).isSymbolicLink();
        } catch {
            return { real: join(next, ...pending), links };
        }
        if (!isLink) {
            current = next;
            continue;
        }
        if (!existsSync(next) || links.length >= MAX_LINKS) {
            return { real: next, links, dangling: next };
        }
        links.push(next);
        const target = readlinkSync(next);
        if (isAbsolute(target)) {
            current = parse(target).root;
            pending.unshift(...segments(target.slice(current.length)));
        } else {
            pending.unshift(...segments(target));
        }
    }
    return { real: current, links };
}

function segments(path: string): string[] {
    return path.split(sep === '\\' ? /[\\/]+/ : '/').filter(Boolean);
}

function toPosix(path: string): string {
    return path.split(sep).join('/');
}
