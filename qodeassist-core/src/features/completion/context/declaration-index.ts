import { SourceFamily } from './context-snippet';
import { ImportStatement, importsOf, ReExport, reExportsOf } from './import-statements';

/** A top-level declaration: its name and the lines a caller needs (signature, members' first lines), never its body. */
export interface Declaration {
    name: string;
    /** 0-based line of the declaration's first line (the one naming it). */
    line: number;
    text: string;
    /** Its first lines alone (a class's header without its members): when the budget is better spent on more declarations. */
    header: string;
}

/** What a module offers other files, read lexically. */
export interface ModuleIndex {
    /** Top-level declarations by name (exported or not: `export { a }` may export a local). */
    declarations: ReadonlyMap<string, Declaration>;
    /** Exported name → the local name behind it (`export { a as b }`, `export default Foo`). */
    aliases: ReadonlyMap<string, string>;
    reExports: readonly ReExport[];
    /** Its own imports (TS): `import { a } from './x'; export { a };` passes `a` on. */
    imports: readonly ImportStatement[];
}

/** Lines of one declaration at most; longer ones end with a line saying how many members were left out. */
const MAX_LINES = 24;
const MAX_SIGNATURE_LINES = 8;

const TS_MODIFIERS = /^(?:(?:export|default|declare|abstract|async|public|protected|static|readonly|override|accessor)\s+)*/;
const TS_DECLARATION = /^(function\*?|class|interface|type|enum|const\s+enum|const|let|var|namespace)\s+([\w$]+)/;
const PY_DECLARATION = /^(?:async\s+)?(def|class)\s+(\w+)/;
const PY_ASSIGNMENT = /^(\w+)\s*(?::[^=\n]+)?=(?!=)/;

/** Reads a module's top-level declarations (lines at column 0) and what it exports under other names. */
export function indexModule(text: string, family: SourceFamily): ModuleIndex {
    const lines = text.split('\n');
    const declarations = new Map<string, Declaration>();
    const aliases = new Map<string, string>();
    for (let line = 0; line < lines.length; line++) {
        const first = lines[line];
        if (first === '' || /^\s/.test(first)) {
            continue;
        }
        const found = family === 'ts' ? tsDeclarationName(first) : pyDeclarationName(first);
        if (found && !declarations.has(found)) {
            declarations.set(found, { name: found, line, ...extractDeclaration(lines, line, family) });
            if (family === 'ts' && /^export\s+default\s/.test(first)) {
                aliases.set('default', found);
            }
        } else if (family === 'ts') {
            readTsExportList(first, aliases);
        }
    }
    return { declarations, aliases, reExports: reExportsOf(text, family), imports: family === 'ts' ? importsOf(text, 'ts') : [] };
}

/** The declaration starting at (or named on) a line, at any depth: what an IDE definition location points at. */
export function declarationAt(text: string, line: number, family: SourceFamily | undefined): Declaration | undefined {
    const lines = text.split('\n');
    if (line < 0 || line >= lines.length || lines[line].trim() === '') {
        return undefined;
    }
    const trimmed = lines[line].trim();
    const name = (family === 'py' ? pyDeclarationName(trimmed) : tsDeclarationName(trimmed)) ?? /[A-Za-z_$][\w$]*/.exec(trimmed.replace(TS_MODIFIERS, ''))?.[0];
    return name === undefined ? undefined : { name, line, ...extractDeclaration(lines, line, family ?? 'ts') };
}

function tsDeclarationName(line: string): string | undefined {
    const match = TS_DECLARATION.exec(line.replace(TS_MODIFIERS, ''));
    return match?.[2];
}

function pyDeclarationName(line: string): string | undefined {
    return PY_DECLARATION.exec(line)?.[2] ?? PY_ASSIGNMENT.exec(line)?.[1];
}

/** `export { a, b as c };` and `export default a;` (no `from`: those are re-exports). */
function readTsExportList(line: string, aliases: Map<string, string>): void {
    const list = /^export\s+(?:type\s+)?\{([^}]*)\}\s*;?\s*$/.exec(line);
    if (list) {
        for (const part of list[1].split(',').map(item => item.trim()).filter(Boolean)) {
            const [local, exported] = part.split(/\s+as\s+/);
            aliases.set(exported ?? local, local);
        }
        return;
    }
    const defaulted = /^export\s+default\s+([\w$]+)\s*;?\s*$/.exec(line);
    if (defaulted) {
        aliases.set('default', defaulted[1]);
    }
}

type Kind = 'block' | 'signature' | 'statement';

/** The lines to show for the declaration on `start`. */
function extractDeclaration(lines: readonly string[], start: number, family: SourceFamily): { text: string; header: string } {
    const kind = family === 'py' ? pyKind(lines[start]) : tsKind(lines, start);
    if (kind === 'block') {
        const headerEnd = family === 'py' ? signatureEnd(lines, start, 'py') : blockHeaderEnd(lines, start);
        return { text: blockOutline(lines, start, headerEnd, family), header: lines.slice(start, headerEnd + 1).join('\n') };
    }
    const end = kind === 'signature' ? signatureEnd(lines, start, family) : statementEnd(lines, start, family);
    const text = lines.slice(start, end + 1).join('\n');
    return { text, header: text };
}

function tsKind(lines: readonly string[], start: number): Kind {
    const head = lines[start].trim().replace(TS_MODIFIERS, '');
    if (/^(class|interface|enum|const\s+enum|namespace)\b/.test(head)) {
        return 'block';
    }
    if (/^(type|const|let|var)\b/.test(head)) {
        // `type A = {` and `const Commands = {` list their members; an arrow function shows its signature.
        const end = statementEnd(lines, start, 'ts');
        if (/=>/.test(lines.slice(start, end + 1).join('\n')) && /^(const|let|var)\b/.test(head)) {
            return 'signature';
        }
        return /[=:]\s*\{\s*$/.test(lines[start]) ? 'block' : 'statement';
    }
    return /^(function\b|[\w$#]+\s*[(<])/.test(head) ? 'signature' : 'statement';
}

function pyKind(line: string): Kind {
    const head = line.trim();
    return /^class\b/.test(head) ? 'block' : /^(async\s+)?def\b/.test(head) ? 'signature' : 'statement';
}

/** Bracket depth change of a line, strings and comments left out (a rough scan: enough for signatures). */
function depthChange(line: string, family: SourceFamily): number {
    const code = line.replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '""').replace(family === 'py' ? /#.*$/ : /\/\/.*$/, '');
    let depth = 0;
    for (const char of code) {
        if (char === '(' || char === '[' || char === '{') {
            depth++;
        } else if (char === ')' || char === ']' || char === '}') {
            depth--;
        }
    }
    return depth;
}

/** The last line of a function's signature: where its parameters close and its body or `;` begins. */
function signatureEnd(lines: readonly string[], start: number, family: SourceFamily): number {
    let parens = 0;
    for (let line = start; line < lines.length && line < start + MAX_SIGNATURE_LINES; line++) {
        const code = lines[line].replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '""');
        for (const char of code) {
            parens += char === '(' ? 1 : char === ')' ? -1 : 0;
        }
        const trimmed = code.trimEnd();
        // TS: the body's brace (even `{ }` on the same line), the `;` of an overload, or an arrow.
        const ends = family === 'py' ? trimmed.endsWith(':') : /[{;]|=>/.test(trimmed);
        if (parens <= 0 && ends) {
            return line;
        }
    }
    return Math.min(lines.length - 1, start + MAX_SIGNATURE_LINES - 1);
}

/** The last line of a statement: where its brackets close (a type alias, an assignment), capped. */
function statementEnd(lines: readonly string[], start: number, family: SourceFamily): number {
    let depth = 0;
    for (let line = start; line < lines.length && line < start + MAX_SIGNATURE_LINES; line++) {
        depth += depthChange(lines[line], family);
        const next = lines[line + 1];
        const continues = family === 'ts' && next !== undefined && /^\s+[|&]/.test(next);
        if (depth <= 0 && !continues) {
            return line;
        }
    }
    return Math.min(lines.length - 1, start + MAX_SIGNATURE_LINES - 1);
}

const indentOf = (line: string) => /^\s*/.exec(line)![0].length;

/**
 * A class, interface, enum, namespace or object: its header, then the first line of each member at
 * the members' indentation (private members and comments left out), then its closing line.
 */
function blockOutline(lines: readonly string[], start: number, headerEnd: number, family: SourceFamily): string {
    const base = indentOf(lines[start]);
    const out = lines.slice(start, headerEnd + 1);
    if (family === 'ts' && lines[headerEnd].includes('}') && depthChange(lines.slice(start, headerEnd + 1).join('\n'), 'ts') <= 0) {
        return out.join('\n');
    }
    let memberIndent: number | undefined;
    let left = 0;
    let line = headerEnd + 1;
    for (; line < lines.length; line++) {
        const text = lines[line];
        if (text.trim() === '') {
            continue;
        }
        const indent = indentOf(text);
        if (indent <= base) {
            break;
        }
        memberIndent ??= indent;
        if (indent !== memberIndent || !isPublicMember(text.trim(), family)) {
            continue;
        }
        if (out.length < MAX_LINES - 2) {
            out.push(text.trimEnd());
        } else {
            left++;
        }
    }
    if (left > 0) {
        out.push(`${' '.repeat(memberIndent ?? base + 4)}${family === 'py' ? '#' : '//'} … ${left} more`);
    }
    if (family === 'ts' && line < lines.length && indentOf(lines[line]) === base && /^\s*}/.test(lines[line])) {
        out.push(lines[line].trimEnd());
    }
    return out.join('\n');
}

function blockHeaderEnd(lines: readonly string[], start: number): number {
    for (let line = start; line < lines.length && line < start + MAX_SIGNATURE_LINES; line++) {
        if (lines[line].includes('{')) {
            return line;
        }
    }
    return start;
}

function isPublicMember(text: string, family: SourceFamily): boolean {
    if (family === 'py') {
        const name = /^(?:async\s+)?def\s+(\w+)/.exec(text)?.[1] ?? /^(\w+)\s*(?::[^=]+)?=/.exec(text)?.[1] ?? /^(\w+)\s*:/.exec(text)?.[1];
        return name !== undefined && (!name.startsWith('_') || name === '__init__' || name === '__call__');
    }
    if (/^(\/\/|\/\*|\*|@|}|\))/.test(text) || /^(private\s|#)/.test(text)) {
        return false;
    }
    return /^[\w$'"[.]/.test(text);
}
