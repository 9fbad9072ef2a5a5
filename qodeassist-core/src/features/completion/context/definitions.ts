import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ContextSnippet, DefinitionLocation, SourceFamily, sourceFamily } from './context-snippet';
import { declarationAt, Declaration, indexModule, ModuleIndex } from './declaration-index';
import { ImportStatement, importsOf, lineAt, lineStarts } from './import-statements';
import { moduleCandidates, submoduleSpecifier } from './module-resolution';
import { ContextFileAccess, SourceFile, SourceFileCache } from './source-files';

export interface DefinitionsInput {
    /** Absolute path of the file being edited. */
    file: string;
    text: string;
    offset: number;
    family: SourceFamily | undefined;
    access: ContextFileAccess;
    /** What the IDE's definition providers answered for identifiers near the cursor: shown first. */
    ideLocations?: readonly DefinitionLocation[];
}

export interface DefinitionsOptions {
    /** Files read from disk per request at most (the modules imported and what they re-export); files the cache holds cost no read. */
    maxReads: number;
    /** Distinct files looked at per request at most, read or cached (a barrel's `export *` list is walked name by name). */
    maxFiles: number;
    /** Imported symbols looked up at most, the most used near the cursor first. */
    maxSymbols: number;
    /** Re-export hops followed (`export * from`, a package's `__init__`). */
    maxDepth: number;
    /** Declarations shown whole (a class with its members), the best ranked first; the rest by their header alone, so more of them fit. */
    fullOutlines: number;
    /**
     * Milliseconds after which no more files are read from disk for this request: what is still
     * missing is read in the background for the next one (the first request in a new area of the
     * code must not wait for every file it could use).
     */
    deadlineMs: number;
}

export const DEFAULT_DEFINITIONS: DefinitionsOptions = { maxReads: 64, maxFiles: 400, maxSymbols: 48, maxDepth: 4, fullOutlines: 6, deadlineMs: 10 };

/** Lines above and below the cursor whose identifiers rank the imported symbols. */
const USAGE_ABOVE = 120;
const USAGE_BELOW = 60;
/** Every imported symbol counts a little, used near the cursor or not: it may be the one about to be typed. */
const IMPORTED_BASE = 0.05;

/** A declaration found in a file. */
interface Hit {
    file: SourceFile;
    declaration: Declaration;
}

/** A name a module passes on from another: looked up only when asked for. */
interface Via {
    from: SourceFile;
    specifier: string;
    imported: string;
}

type Entry = Hit | Via;

interface ExportTable {
    names: ReadonlyMap<string, Entry>;
    /** Specifiers of the modules it re-exports whole, in order. */
    stars: readonly string[];
}

interface Candidate {
    statement: ImportStatement;
    imported: string;
    symbol: string;
    score: number;
}

/**
 * Definitions of the symbols around the cursor: first the IDE's answers (a language server knows
 * best), then a lexical fallback that follows the file's imports to the declarations they name —
 * signatures and member lists, not bodies — ranked by how much the code near the cursor uses them.
 */
export async function findDefinitions(input: DefinitionsInput, cache: SourceFileCache, options: DefinitionsOptions = DEFAULT_DEFINITIONS): Promise<ContextSnippet[]> {
    const lookup = new Lookup(input, cache, options);
    const found = await lookup.fromIde(input.ideLocations ?? []);
    if (input.family !== undefined) {
        found.push(...await lookup.fromImports(input.family));
    }
    return found;
}

class Lookup {
    private readonly files = new Map<string, SourceFile | undefined>();
    private readonly tables = new Map<string, ExportTable>();
    private reads = 0;
    private readonly started = performance.now();
    private readonly seen = new Set<string>();
    private outlined = 0;
    private pythonBases: string[] | undefined;

    constructor(private readonly input: DefinitionsInput, private readonly cache: SourceFileCache, private readonly options: DefinitionsOptions) { }

    async fromIde(locations: readonly DefinitionLocation[]): Promise<ContextSnippet[]> {
        const found: ContextSnippet[] = [];
        for (const [rank, place] of locations.entries()) {
            if (place.path === this.input.file) {
                continue;
            }
            const file = await this.open(place.path);
            const declaration = file && declarationAt(file.text, place.line, sourceFamily(place.path));
            if (file && declaration) {
                this.add(found, { file, declaration }, place.symbol ?? declaration.name, 1000 - rank);
            }
        }
        return found;
    }

    async fromImports(family: SourceFamily): Promise<ContextSnippet[]> {
        const statements = importsOf(this.input.text, family);
        const usage = usageNearCursor(this.input.text, this.input.offset, statements);
        const found: ContextSnippet[] = [];
        for (const candidate of candidates(statements, usage).slice(0, this.options.maxSymbols)) {
            const module = await this.resolve(candidate.statement.module, this.input.file, family);
            if (!module) {
                continue;
            }
            if (candidate.imported === '*') {
                await this.namespaceMembers(found, module, candidate, usage, family);
                continue;
            }
            const hit = await this.declared(module, candidate.imported, family);
            if (hit) {
                this.add(found, hit, candidate.symbol, candidate.score);
            } else if (family === 'py') {
                // `from pkg import mod`: a submodule, used as `mod.name`.
                const submodule = await this.resolve(submoduleSpecifier(candidate.statement.module, candidate.imported), this.input.file, family);
                if (submodule) {
                    await this.namespaceMembers(found, submodule, { ...candidate, imported: '*' }, usage, family);
                }
            }
        }
        return found;
    }

    /** `ns.member` near the cursor, for a namespace import (`import * as ns`, Python's `import pkg.mod`). */
    private async namespaceMembers(found: ContextSnippet[], module: SourceFile, candidate: Candidate, usage: ReadonlyMap<string, number>, family: SourceFamily): Promise<void> {
        const prefix = candidate.symbol === '*' ? '' : `${candidate.symbol}.`;
        const members = [...usage.entries()]
            .filter(([name]) => name.startsWith(prefix) && !name.slice(prefix.length).includes('.') && name.length > prefix.length)
            .sort((a, b) => b[1] - a[1]).slice(0, 8);
        for (const [name, score] of members) {
            const hit = await this.declared(module, name.slice(prefix.length), family);
            if (hit) {
                this.add(found, hit, name, candidate.score + score);
            }
        }
    }

    /**
     * Where a module declares `name`, following its re-exports: a name it passes on is looked up
     * where it comes from; an `export *` list is walked in order only until a module has the name,
     * so a large barrel costs the reads of the modules before the one that declares it.
     */
    private async declared(module: SourceFile, name: string, family: SourceFamily, depth = 0, visited = new Set<string>()): Promise<Hit | undefined> {
        const key = `${module.absolute}\0${name}`;
        if (visited.has(key) || depth > this.options.maxDepth) {
            return undefined;
        }
        visited.add(key);
        const table = this.exportsOf(module, family);
        const entry = table.names.get(name);
        if (entry && 'declaration' in entry) {
            return entry;
        }
        if (entry) {
            const target = await this.resolve(entry.specifier, entry.from.absolute, family);
            return target ? this.declared(target, entry.imported, family, depth + 1, visited) : undefined;
        }
        for (const specifier of name === 'default' ? [] : table.stars) {
            const target = await this.resolve(specifier, module.absolute, family);
            const hit = target && await this.declared(target, name, family, depth + 1, visited);
            if (hit) {
                return hit;
            }
        }
        return undefined;
    }

    /**
     * The names a module offers by itself — its top-level declarations and aliases, and pointers for
     * what it passes on by name (`export { a as b } from`, imports it exports again, a package's
     * `from .x import a`) — and the modules it re-exports whole (`export *`).
     */
    private exportsOf(module: SourceFile, family: SourceFamily): ExportTable {
        const known = this.tables.get(module.absolute);
        if (known) {
            return known;
        }
        const index = this.cache.derived<ModuleIndex>(module, `index:${family}`, file => indexModule(file.text, family));
        const names = new Map<string, Entry>();
        for (const [name, declaration] of index.declarations) {
            names.set(name, { file: module, declaration });
        }
        const via = (specifier: string, imported: string): Entry => ({ from: module, specifier, imported });
        for (const [exported, local] of index.aliases) {
            const own = names.get(local);
            const statement = own ? undefined : index.imports.find(item => item.names.some(entry => entry.local === local && entry.imported !== '*'));
            const entry = own ?? (statement ? via(statement.module, statement.names.find(item => item.local === local)!.imported) : undefined);
            if (entry) {
                names.set(exported, entry);
            }
        }
        for (const reExport of index.reExports) {
            for (const name of reExport.names ?? []) {
                if (name.imported !== '*' && !names.has(name.local)) {
                    names.set(name.local, via(reExport.module, name.imported));
                }
            }
        }
        const table = { names, stars: index.reExports.filter(item => item.names === undefined).map(item => item.module) };
        this.tables.set(module.absolute, table);
        return table;
    }

    private async resolve(specifier: string, fromFile: string, family: SourceFamily): Promise<SourceFile | undefined> {
        const bases = family === 'py' && !specifier.startsWith('.') ? await this.bases() : [];
        for (const candidate of moduleCandidates(specifier, fromFile, family, bases)) {
            const file = await this.open(candidate);
            if (file) {
                return file;
            }
        }
        return undefined;
    }

    /**
     * A workspace file no ignore rule hides, read through the cache; at most `maxFiles` looked at and
     * `maxReads` read from disk. (Links are checked, at more cost, only for the files shown: `add`.)
     */
    private async open(absolute: string): Promise<SourceFile | undefined> {
        if (this.files.has(absolute)) {
            return this.files.get(absolute);
        }
        if (this.files.size >= this.options.maxFiles || !this.input.access.mayRead(absolute)) {
            return undefined;
        }
        if (!this.cache.isFresh(absolute)) {
            if (performance.now() - this.started > this.options.deadlineMs) {
                this.files.set(absolute, undefined);
                void this.cache.read(absolute);
                return undefined;
            }
            if (this.reads++ >= this.options.maxReads) {
                return undefined;
            }
        }
        const file = await this.cache.read(absolute);
        this.files.set(absolute, file);
        return file;
    }

    /** Where Python's absolute imports start: above the file's package tree, then the workspace roots. */
    private async bases(): Promise<string[]> {
        if (!this.pythonBases) {
            let folder = dirname(this.input.file);
            for (let up = 0; up < 12 && await this.cache.read(join(folder, '__init__.py')); up++) {
                folder = dirname(folder);
            }
            this.pythonBases = [folder, ...this.input.access.roots, ...this.input.access.roots.map(root => join(root, 'src'))];
        }
        return this.pythonBases;
    }

    private add(found: ContextSnippet[], { file, declaration }: Hit, symbol: string, score: number): void {
        const key = `${file.absolute}:${declaration.line}`;
        if (file.absolute === this.input.file || this.seen.has(key)) {
            return;
        }
        this.seen.add(key);
        const path = this.input.access.relativePath(file.absolute);
        if (path !== undefined) {
            const content = this.outlined++ < this.options.fullOutlines ? declaration.text : declaration.header;
            found.push({ source: 'definition', path, content, startLine: declaration.line, symbol, score });
        }
    }
}

/** Imported names, the most used near the cursor first (ties: the later import first, as it was likely added last). */
function candidates(statements: readonly ImportStatement[], usage: ReadonlyMap<string, number>): Candidate[] {
    const list: Candidate[] = [];
    statements.forEach((statement, order) => {
        for (const name of statement.names) {
            const namespace = name.imported === '*';
            const used = namespace ? sumWithPrefix(usage, `${name.local}.`) : usage.get(name.local) ?? 0;
            list.push({ statement, imported: name.imported, symbol: name.local, score: IMPORTED_BASE + used + order * 1e-6 });
        }
    });
    return list.sort((a, b) => b.score - a.score);
}

function sumWithPrefix(usage: ReadonlyMap<string, number>, prefix: string): number {
    let sum = 0;
    for (const [name, score] of usage) {
        sum += name.startsWith(prefix) ? score : 0;
    }
    return sum;
}

const CHAIN = /[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*/g;

/**
 * How much the code near the cursor uses each name and dotted chain (`a`, `a.b`, `a.b.c`), each
 * use weighted by its closeness to the cursor; the import statements themselves do not count.
 */
export function usageNearCursor(text: string, offset: number, statements: readonly ImportStatement[]): Map<string, number> {
    const starts = lineStarts(text);
    const cursorLine = lineAt(starts, offset);
    const first = Math.max(0, cursorLine - USAGE_ABOVE);
    const last = Math.min(starts.length - 1, cursorLine + USAGE_BELOW);
    const importLines = new Set(statements.flatMap(statement => Array.from({ length: statement.endLine - statement.line + 1 }, (_, i) => statement.line + i)));
    const usage = new Map<string, number>();
    for (let line = first; line <= last; line++) {
        if (importLines.has(line)) {
            continue;
        }
        const weight = 1 / (1 + Math.abs(line - cursorLine) / 8);
        const lineText = text.slice(starts[line], line + 1 < starts.length ? starts[line + 1] : text.length);
        for (const match of lineText.matchAll(CHAIN)) {
            const parts = match[0].split('.').map(part => part.trim());
            for (let length = 1; length <= parts.length; length++) {
                const name = parts.slice(0, length).join('.');
                usage.set(name, (usage.get(name) ?? 0) + weight);
            }
        }
    }
    return usage;
}
