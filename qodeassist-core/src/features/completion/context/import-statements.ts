import { SourceFamily } from './context-snippet';

/**
 * One name an import brings in. `imported` is the name in the module (`default` for a default
 * import, `*` for a whole module); `local` the name this file uses (for `*`, the namespace, which
 * may be dotted as Python's `import a.b`; `*` alone for a star import).
 */
export interface ImportedName {
    imported: string;
    local: string;
}

export interface ImportStatement {
    /** As written: `./x`, `../y.js`, `.models`, `pkg.sub`. */
    module: string;
    names: ImportedName[];
    /** 0-based lines the statement spans. */
    line: number;
    endLine: number;
}

/** A module's re-export: `export { a as b } from './x'`, `export * from './x'`, Python's `from .x import a` in a package. */
export interface ReExport {
    module: string;
    /** Undefined: everything (`export *`); `local` is the name it is exported as. */
    names?: ImportedName[];
}

const TS_IMPORT = /(?:^|[;\n])[ \t]*import\s+(?:type\s+)?([\w$*{}\s,]+?)\s+from\s*(['"])([^'"\n]+)\2/g;
const TS_IMPORT_EQUALS = /(?:^|[;\n])[ \t]*import\s+([\w$]+)\s*=\s*require\(\s*(['"])([^'"\n]+)\2\s*\)/g;
const TS_REQUIRE = /(?:^|[;\n])[ \t]*(?:const|let|var)\s+([\w$]+|\{[\w$:,\s]*\})\s*=\s*require\(\s*(['"])([^'"\n]+)\2\s*\)/g;
const TS_REEXPORT = /(?:^|[;\n])[ \t]*export\s+(?:type\s+)?(\*(?:\s+as\s+[\w$]+)?|\{[\w$\s,]*\})\s*from\s*(['"])([^'"\n]+)\2/g;
const PY_FROM = /^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n#\\]|\\\n)+)/gm;
const PY_IMPORT = /^[ \t]*import[ \t]+([\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*)/gm;

/** The imports of a file that name a module (side-effect imports bring no names and are left out). */
export function importsOf(text: string, family: SourceFamily): ImportStatement[] {
    const lines = lineStarts(text);
    const found: ImportStatement[] = [];
    const add = (module: string, names: ImportedName[], start: number, end: number) => {
        if (names.length > 0) {
            found.push({ module, names, line: lineAt(lines, start), endLine: lineAt(lines, end) });
        }
    };
    if (family === 'ts') {
        for (const match of text.matchAll(TS_IMPORT)) {
            add(match[3], tsClauseNames(match[1]), startOf(match), match.index + match[0].length);
        }
        for (const match of text.matchAll(TS_IMPORT_EQUALS)) {
            add(match[3], [{ imported: '*', local: match[1] }], startOf(match), match.index + match[0].length);
        }
        for (const match of text.matchAll(TS_REQUIRE)) {
            const binding = match[1];
            const names = binding.startsWith('{') ? braceNames(binding, ':') : [{ imported: '*', local: binding }];
            add(match[3], names, startOf(match), match.index + match[0].length);
        }
    } else {
        for (const match of text.matchAll(PY_FROM)) {
            add(match[1], pythonNames(match[2]), match.index, match.index + match[0].length);
        }
        for (const match of text.matchAll(PY_IMPORT)) {
            for (const part of match[1].split(',')) {
                const [module, alias] = part.trim().split(/\s+as\s+/);
                // `import a.b` binds `a`, and the code says `a.b.x`: the namespace is the dotted name.
                add(module, [{ imported: '*', local: alias ?? module }], match.index, match.index + match[0].length);
            }
        }
    }
    return found.sort((a, b) => a.line - b.line);
}

/** What a module passes on from others (TS `export … from`; in Python every `from … import` may be one). */
export function reExportsOf(text: string, family: SourceFamily): ReExport[] {
    if (family === 'py') {
        return importsOf(text, 'py').filter(statement => !statement.names.some(name => name.imported === '*' && name.local !== '*'))
            .map(statement => statement.names.some(name => name.local === '*') ? { module: statement.module } : { module: statement.module, names: statement.names });
    }
    const found: ReExport[] = [];
    for (const match of text.matchAll(TS_REEXPORT)) {
        const clause = match[1];
        if (clause.startsWith('{')) {
            found.push({ module: match[3], names: braceNames(clause, 'as') });
        } else {
            const namespace = /as\s+([\w$]+)/.exec(clause)?.[1];
            found.push(namespace ? { module: match[3], names: [{ imported: '*', local: namespace }] } : { module: match[3] });
        }
    }
    return found;
}

function tsClauseNames(clause: string): ImportedName[] {
    const names: ImportedName[] = [];
    const braces = /\{([^}]*)\}/.exec(clause);
    if (braces) {
        names.push(...braceNames(braces[0], 'as'));
    }
    const rest = clause.replace(/\{[^}]*\}/, '').split(',').map(part => part.trim()).filter(Boolean);
    for (const part of rest) {
        const namespace = /^\*\s*as\s+([\w$]+)$/.exec(part);
        if (namespace) {
            names.push({ imported: '*', local: namespace[1] });
        } else if (/^[\w$]+$/.test(part)) {
            names.push({ imported: 'default', local: part });
        }
    }
    return names;
}

/** `{ a, b as c, type d }` (TS) or `{ a, b: c }` (a destructured require). */
function braceNames(braces: string, separator: 'as' | ':'): ImportedName[] {
    const split = separator === 'as' ? /\s+as\s+/ : /\s*:\s*/;
    return braces.replace(/[{}]/g, '').split(',').map(part => part.trim().replace(/^type\s+/, '')).filter(Boolean).flatMap(part => {
        const [imported, local] = part.split(split);
        return /^[\w$]+$/.test(imported) && (local === undefined || /^[\w$]+$/.test(local)) ? [{ imported, local: local ?? imported }] : [];
    });
}

function pythonNames(list: string): ImportedName[] {
    const body = list.replace(/[()\\]/g, ' ').replace(/#[^\n]*/g, ' ');
    if (body.trim() === '*') {
        return [{ imported: '*', local: '*' }];
    }
    return body.split(',').map(part => part.trim()).filter(Boolean).flatMap(part => {
        const [imported, local] = part.split(/\s+as\s+/);
        return /^\w+$/.test(imported) && (local === undefined || /^\w+$/.test(local)) ? [{ imported, local: local ?? imported }] : [];
    });
}

/** A TS match may begin with the `;` or newline before the statement. */
function startOf(match: RegExpMatchArray): number {
    const index = match.index!;
    return /^[;\n]/.test(match[0]) ? index + 1 : index;
}

export function lineStarts(text: string): number[] {
    const starts = [0];
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
        starts.push(at + 1);
    }
    return starts;
}

/** The 0-based line of an offset, given the line starts. */
export function lineAt(starts: readonly number[], offset: number): number {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
        const middle = (low + high + 1) >> 1;
        if (starts[middle] <= offset) {
            low = middle;
        } else {
            high = middle - 1;
        }
    }
    return low;
}
