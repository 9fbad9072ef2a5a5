import { closeSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { posix } from 'node:path';
import picomatch = require('picomatch');
import { parse as parseYaml } from 'yaml';
import { RULES_LAYER_PREFIX } from '../../context/context-assembler';
import { WorkspaceFiles } from '../../tools/workspace-files';

/** The rules-file conventions QodeAssist reads, each turned off on its own by the user. */
export type RulesKind = 'agents' | 'claude' | 'gemini' | 'copilot' | 'cursor' | 'cline';
export const RULES_KINDS: readonly RulesKind[] = ['agents', 'claude', 'gemini', 'copilot', 'cursor', 'cline'];

export interface RulesSettings {
    /** Kinds the user turned off; absent: all on. */
    disabled?: readonly RulesKind[];
}

/** A rules file put into the prompt. */
export interface RulesFile {
    kind: RulesKind;
    /** Workspace-relative, `/`-separated. */
    path: string;
    /** The folder it speaks for ('' for the whole workspace), or the globs it applies to. */
    appliesTo: string;
    text: string;
}

/** A rules file found but not used, and why. */
export interface SkippedRulesFile {
    path: string;
    reason: string;
}

export interface RulesFilesFound {
    used: RulesFile[];
    skipped: SkippedRulesFile[];
}

/** The most one rules file may hold; a larger one is skipped and listed. */
export const MAX_RULES_FILE_BYTES = 64 * 1024;
/** The most all rules files together put into one request; files past it are skipped and listed. */
export const MAX_RULES_TOTAL_CHARS = 48 * 1024;
/** A rules folder (`.github/instructions`, `.cursor/rules`, `.clinerules/`) is read this many files deep at most. */
const MAX_FOLDER_FILES = 64;

/** Names read in every folder from the workspace root down to each relevant file, in this order. */
const FOLDER_FILES: ReadonlyArray<[string, RulesKind]> = [['AGENTS.md', 'agents'], ['CLAUDE.md', 'claude'], ['GEMINI.md', 'gemini']];


/**
 * The repository's instructions for agents, found in the workspace (docs/ARCHITECTURE.md §7: only a
 * trusted workspace's are read — the caller decides): `AGENTS.md`, `CLAUDE.md` and `GEMINI.md` at
 * the root and in every folder above a file the turn touches or has open (root first, deeper ones
 * after, so the more specific come later); `.github/copilot-instructions.md`;
 * `.github/instructions/*.instructions.md` whose `applyTo` globs match a relevant file;
 * `.cursor/rules/*.mdc` with `alwaysApply` or matching `globs`; `.clinerules` (a file or a folder).
 * Read through the workspace's file rules (ignore files, links kept inside, regular files only, a
 * size cap); the same text under two names is used once.
 */
export function findRulesFiles(files: WorkspaceFiles, relevant: readonly string[], settings: RulesSettings = {}): RulesFilesFound {
    const found = new RulesCollector(files, new Set(settings.disabled ?? []));
    const relevantFiles = [...new Set(relevant.map(path => path.split('\\').join('/')).filter(path => path && !path.startsWith('..')))];
    found.folder('');
    found.add('.github/copilot-instructions.md', 'copilot', '');
    for (const path of found.folderFiles('.github/instructions', name => name.endsWith('.instructions.md'))) {
        found.addMatching(path, 'copilot', relevantFiles, meta => listOf(meta.applyTo), 'no applyTo: Copilot applies it only when asked');
    }
    for (const path of found.folderFiles('.cursor/rules', name => name.endsWith('.mdc') || name.endsWith('.md'))) {
        found.addMatching(path, 'cursor', relevantFiles, meta => meta.alwaysApply === true ? ['**'] : listOf(meta.globs), 'neither alwaysApply nor globs: Cursor applies it only when asked');
    }
    if (found.isFolder('.clinerules')) {
        for (const path of found.folderFiles('.clinerules', name => name.endsWith('.md') || name.endsWith('.txt'))) {
            found.add(path, 'cline', '');
        }
    } else {
        found.add('.clinerules', 'cline', '');
    }
    const nested = new Set<string>();
    for (const path of relevantFiles) {
        const parts = posix.dirname(path).split('/').filter(part => part && part !== '.');
        parts.forEach((_, index) => nested.add(parts.slice(0, index + 1).join('/')));
    }
    [...nested].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b)).forEach(folder => found.folder(folder));
    return { used: found.used, skipped: found.skipped };
}

/** The prompt layers of the rules files used: one each, named so the manifest lists it with its tokens. */
export function rulesLayers(used: readonly RulesFile[]): Array<{ name: string; text: string }> {
    return used.map(file => ({
        name: `${RULES_LAYER_PREFIX}${file.path}`,
        text: `Instructions from the project's ${file.path}${file.appliesTo ? ` (for ${file.appliesTo})` : ''}; `
            + `where they conflict, the more specific ones (deeper folders, listed later) win:\n\n${file.text}`
    }));
}

class RulesCollector {
    readonly used: RulesFile[] = [];
    readonly skipped: SkippedRulesFile[] = [];
    private readonly seenTexts = new Map<string, string>();
    private total = 0;

    constructor(private readonly files: WorkspaceFiles, private readonly disabled: ReadonlySet<RulesKind>) { }

    folder(folder: string): void {
        for (const [name, kind] of FOLDER_FILES) {
            this.add(folder ? `${folder}/${name}` : name, kind, folder ? `files under ${folder}/` : '');
        }
    }

    isFolder(path: string): boolean {
        try {
            return lstatSync(this.files.resolve(path).absolute).isDirectory();
        } catch {
            return false;
        }
    }

    /** The files of a rules folder (one level, sorted), when it is a real folder inside the workspace that no ignore rule hides. */
    folderFiles(folder: string, wanted: (name: string) => boolean): string[] {
        if (!this.isFolder(folder)) {
            return [];
        }
        try {
            const resolved = this.files.resolve(folder);
            this.files.assertNotIgnored(resolved);
            return readdirSync(resolved.absolute).filter(wanted).sort().slice(0, MAX_FOLDER_FILES).map(name => `${folder}/${name}`);
        } catch (error) {
            this.skipped.push({ path: folder, reason: error instanceof Error ? error.message : String(error) });
            return [];
        }
    }

    /** A file with frontmatter globs: used when a relevant file matches them. */
    addMatching(path: string, kind: RulesKind, relevant: readonly string[], globsOf: (meta: Record<string, unknown>) => string[], unmatched: string): void {
        const read = this.read(path, kind);
        if (read === undefined) {
            return;
        }
        const globs = globsOf(read.meta);
        if (globs.length === 0) {
            this.skipped.push({ path, reason: unmatched });
            return;
        }
        const matches = picomatch(globs, { dot: true });
        if (!globs.includes('**') && !relevant.some(file => matches(file))) {
            this.skipped.push({ path, reason: `applies to ${globs.join(', ')}: no file of this turn matches` });
            return;
        }
        this.use(path, kind, globs.includes('**') ? '' : globs.join(', '), read.text);
    }

    add(path: string, kind: RulesKind, appliesTo: string): void {
        const read = this.read(path, kind);
        if (read !== undefined) {
            this.use(path, kind, appliesTo, read.text);
        }
    }

    private use(path: string, kind: RulesKind, appliesTo: string, text: string): void {
        if (!text) {
            return;
        }
        const same = this.seenTexts.get(text);
        if (same !== undefined) {
            this.skipped.push({ path, reason: `the same text as ${same}, used once` });
            return;
        }
        if (this.total + text.length > MAX_RULES_TOTAL_CHARS) {
            this.skipped.push({ path, reason: `the rules files before it already hold ${this.total} characters (at most ${MAX_RULES_TOTAL_CHARS} go into a request)` });
            return;
        }
        this.seenTexts.set(text, path);
        this.total += text.length;
        this.used.push({ kind, path, appliesTo, text });
    }

    /** The file's text without its frontmatter, and the frontmatter; undefined when it is absent, off, or may not be read (listed). */
    private read(path: string, kind: RulesKind): { text: string; meta: Record<string, unknown> } | undefined {
        let absolute: string;
        try {
            const resolved = this.files.resolve(path);
            absolute = this.files.real(resolved).absolute;
            const info = lstatSync(absolute);
            if (!info.isFile()) {
                return undefined;
            }
            if (this.disabled.has(kind)) {
                this.skipped.push({ path, reason: `${kind} rules files are turned off in the settings` });
                return undefined;
            }
            this.files.assertNotIgnored(resolved);
            if (info.size > MAX_RULES_FILE_BYTES) {
                this.skipped.push({ path, reason: `larger than ${MAX_RULES_FILE_BYTES / 1024} KiB` });
                return undefined;
            }
        } catch (error) {
            const missing = (error as NodeJS.ErrnoException).code === 'ENOENT' || /does not exist/.test(String((error as Error).message));
            if (!missing) {
                this.skipped.push({ path, reason: error instanceof Error ? error.message : String(error) });
            }
            return undefined;
        }
        const bytes = readBounded(absolute);
        if (bytes.includes(0)) {
            this.skipped.push({ path, reason: 'not a text file' });
            return undefined;
        }
        return splitFrontmatter(bytes.toString('utf8'));
    }
}

/** At most MAX_RULES_FILE_BYTES of a file, whatever it grew to since it was sized. */
function readBounded(path: string): Buffer {
    const buffer = Buffer.alloc(MAX_RULES_FILE_BYTES);
    const fd = openSync(path, 'r');
    try {
        let length = 0;
        for (let read = -1; read !== 0 && length < buffer.length;) {
            read = readSync(fd, buffer, length, buffer.length - length, length);
            length += read;
        }
        return buffer.subarray(0, length);
    } finally {
        closeSync(fd);
    }
}

function splitFrontmatter(source: string): { text: string; meta: Record<string, unknown> } {
    const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(source);
    if (!match) {
        return { text: source.trim(), meta: {} };
    }
    let meta: unknown;
    try {
        meta = parseYaml(match[1]);
    } catch {
        meta = undefined;
    }
    return { text: source.slice(match[0].length).trim(), meta: meta && typeof meta === 'object' && !Array.isArray(meta) ? meta as Record<string, unknown> : {} };
}

/** `applyTo: "a, b"`, `globs: a,b` or a YAML list, as a list of globs. */
function listOf(value: unknown): string[] {
    const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
    return items.filter((item): item is string => typeof item === 'string').map(item => item.trim()).filter(Boolean);
}
