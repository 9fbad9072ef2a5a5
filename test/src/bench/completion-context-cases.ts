import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import * as ts from 'typescript';

/**
 * A project whose sources ship inside an installed package: the workspace the retriever sees is
 * `root`; cases come from `files`.
 */
export interface ContextProject {
    name: string;
    family: 'ts' | 'py';
    root: string;
    files: string[];
}

/** A line that uses a symbol another file defines, with the cursor where the symbol's use starts. */
export interface ContextCase {
    project: string;
    /** Absolute path of the file being completed. */
    file: string;
    /** The file as the user has it: the rest of the cursor's line is not typed yet. */
    text: string;
    offset: number;
    symbol: string;
    /** Absolute path of the defining file, and its declaration lines (trimmed): any one in the context is a hit. */
    definitionFile: string;
    definitionLines: string[];
}

/** Sources under a folder with one of the extensions, test and generated folders left out, sorted. */
export function sourcesUnder(folder: string, extensions: readonly string[], skip: RegExp = /(^|\/)(tests?|__tests__|benchmarks?|node_modules|_vendor)(\/|$)|\.(spec|test)\.|\.d\.ts$/): string[] {
    const found: string[] = [];
    const walk = (dir: string) => {
        for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
            const path = join(dir, entry.name);
            const rel = relative(folder, path).split(sep).join('/');
            if (skip.test(rel)) {
                continue;
            }
            if (entry.isDirectory()) {
                walk(path);
            } else if (extensions.some(extension => entry.name.endsWith(extension))) {
                found.push(path);
            }
        }
    };
    walk(folder);
    return found;
}

/** The benchmark's projects that are installed here: TypeScript packages that ship their sources, and pip from the Debian python3 tree. */
export function installedProjects(): { projects: ContextProject[]; missing: string[] } {
    const projects: ContextProject[] = [];
    const missing: string[] = [];
    for (const [name, pkg, sub] of [['@theia/core', '@theia/core', 'src'], ['openai', 'openai', 'src'], ['zod', 'zod', 'src']] as const) {
        const folder = (require.resolve.paths(pkg) ?? []).map(path => join(path, pkg)).find(path => existsSync(join(path, 'package.json')));
        const root = folder && join(folder, sub);
        if (root && existsSync(root)) {
            projects.push({ name, family: 'ts', root, files: sourcesUnder(root, ['.ts', '.tsx']) });
        } else {
            missing.push(name);
        }
    }
    const pip = ['/usr/lib/python3/dist-packages/pip'].find(path => existsSync(join(path, '_internal')));
    if (pip && pythonAvailable()) {
        projects.push({ name: 'pip (Debian python3-pip)', family: 'py', root: pip, files: sourcesUnder(join(pip, '_internal'), ['.py']) });
    } else {
        missing.push('pip');
    }
    return { projects, missing };
}

/** Up to `perProject` cases of a project, spread over its files (at most `perFile` a file, one per symbol), chosen by a fixed seed. */
export function casesOf(project: ContextProject, perProject: number, perFile = 2): ContextCase[] {
    const all = project.family === 'ts' ? typescriptCases(project) : pythonCases(project);
    const byFile = new Map<string, ContextCase[]>();
    for (const found of all) {
        const list = byFile.get(found.file) ?? [];
        if (!list.some(other => other.symbol === found.symbol)) {
            byFile.set(found.file, [...list, found]);
        }
    }
    const random = seeded(22);
    const pool = [...byFile.values()].flatMap(list => shuffle(list, random).slice(0, perFile));
    return shuffle(pool, random).slice(0, perProject);
}

// ---- TypeScript: the compiler's parser and module resolution, independent of the retriever's lexical reading.

const COMPILER_OPTIONS: ts.CompilerOptions = { moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext, allowJs: true };

function typescriptCases(project: ContextProject): ContextCase[] {
    const cases: ContextCase[] = [];
    const parsed = new Map<string, ts.SourceFile | undefined>();
    const parse = (path: string) => {
        if (!parsed.has(path)) {
            parsed.set(path, existsSync(path) ? ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true) : undefined);
        }
        return parsed.get(path);
    };
    for (const file of project.files) {
        const source = parse(file)!;
        const imported = new Map<string, { module: string; name: string }>();
        for (const statement of source.statements) {
            if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier) || !statement.moduleSpecifier.text.startsWith('.')) {
                continue;
            }
            const clause = statement.importClause;
            const target = resolveTs(statement.moduleSpecifier.text, file);
            if (!clause || !target) {
                continue;
            }
            if (clause.name) {
                imported.set(clause.name.text, { module: target, name: 'default' });
            }
            if (clause.namedBindings && ts.isNamedImports(clause.namedBindings)) {
                for (const element of clause.namedBindings.elements) {
                    imported.set(element.name.text, { module: target, name: (element.propertyName ?? element.name).text });
                }
            }
        }
        if (imported.size === 0) {
            continue;
        }
        const visit = (node: ts.Node): void => {
            if (ts.isImportDeclaration(node)) {
                return;
            }
            if (ts.isIdentifier(node) && imported.has(node.text) && isReference(node)) {
                const from = imported.get(node.text)!;
                const definition = tsDeclaration(from.module, from.name, parse, 0);
                if (definition && definition.file !== file) {
                    const start = node.getStart(source);
                    cases.push(caseAt(project.name, file, source.text, start, node.text, definition));
                }
            }
            ts.forEachChild(node, visit);
        };
        visit(source);
    }
    return cases;
}

function resolveTs(specifier: string, fromFile: string): string | undefined {
    const resolved = ts.resolveModuleName(specifier, fromFile, COMPILER_OPTIONS, ts.sys).resolvedModule?.resolvedFileName;
    return resolved && !resolved.endsWith('.d.ts') ? resolved : undefined;
}

/** An identifier that names the imported binding, not a property or a declaration's own name. */
function isReference(node: ts.Identifier): boolean {
    const parent = node.parent;
    if ((ts.isPropertyAccessExpression(parent) || ts.isQualifiedName(parent)) && (ts.isPropertyAccessExpression(parent) ? parent.name : parent.right) === node) {
        return false;
    }
    const named = parent as ts.Node & { name?: ts.Node };
    return !(named.name === node && (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertySignature(parent) || ts.isMethodDeclaration(parent)
        || ts.isMethodSignature(parent) || ts.isParameter(parent) || ts.isVariableDeclaration(parent) || ts.isBindingElement(parent) || ts.isExportSpecifier(parent)
        || ts.isFunctionDeclaration(parent) || ts.isClassDeclaration(parent) || ts.isEnumMember(parent) || ts.isGetAccessor(parent) || ts.isSetAccessor(parent)));
}

/** Where a module declares an exported name (every declaration of it: an interface and a const may share one), following re-exports. */
function tsDeclaration(file: string, name: string, parse: (path: string) => ts.SourceFile | undefined, depth: number): { file: string; lines: string[] } | undefined {
    const source = parse(file);
    if (!source || depth > 6) {
        return undefined;
    }
    const exported = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some(modifier => modifier.kind === ts.SyntaxKind.ExportKeyword);
    const isDefault = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some(modifier => modifier.kind === ts.SyntaxKind.DefaultKeyword);
    const lineOf = (node: ts.Node) => source.text.split('\n')[source.getLineAndCharacterOfPosition(node.getStart(source)).line].trim();
    const localDeclarations = (local: string, mustExport: boolean) => source.statements.flatMap(statement => {
        if (mustExport && !exported(statement)) {
            return [];
        }
        if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)
            || ts.isEnumDeclaration(statement) || ts.isModuleDeclaration(statement)) && statement.name && ts.isIdentifier(statement.name) && statement.name.text === local) {
            return [lineOf(statement.name)];
        }
        if (ts.isVariableStatement(statement)) {
            return statement.declarationList.declarations.filter(declaration => ts.isIdentifier(declaration.name) && declaration.name.text === local).map(declaration => lineOf(declaration.name));
        }
        return [];
    });
    if (name === 'default') {
        for (const statement of source.statements) {
            if (isDefault(statement) && (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) {
                return { file, lines: [lineOf(statement.name)] };
            }
            if (ts.isExportAssignment(statement) && ts.isIdentifier(statement.expression)) {
                const lines = localDeclarations(statement.expression.text, false);
                return lines.length ? { file, lines } : undefined;
            }
        }
        return undefined;
    }
    const own = localDeclarations(name, true);
    if (own.length > 0) {
        return { file, lines: own };
    }
    for (const statement of source.statements) {
        if (!ts.isExportDeclaration(statement)) {
            continue;
        }
        const target = statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) ? resolveTs(statement.moduleSpecifier.text, file) : undefined;
        if (!statement.exportClause) {
            const found = target && tsDeclaration(target, name, parse, depth + 1);
            if (found) {
                return found;
            }
        } else if (ts.isNamedExports(statement.exportClause)) {
            const element = statement.exportClause.elements.find(item => item.name.text === name);
            const local = element && (element.propertyName ?? element.name).text;
            if (local && target) {
                return tsDeclaration(target, local, parse, depth + 1);
            }
            if (local) {
                const lines = localDeclarations(local, false);
                return lines.length ? { file, lines } : undefined;
            }
        }
    }
    return undefined;
}

// ---- Python: the interpreter's own `ast` module reads the files.

const PYTHON_READER = `
import ast, json, sys
out = {}
for path in json.load(sys.stdin):
    try:
        tree = ast.parse(open(path, encoding="utf-8").read())
    except Exception:
        continue
    defs, imports, uses = {}, [], []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs.setdefault(node.name, []).append(node.lineno)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    defs.setdefault(target.id, []).append(node.lineno)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defs.setdefault(node.target.id, []).append(node.lineno)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imports.append({"module": node.module or "", "level": node.level, "names": [[a.name, a.asname or a.name] for a in node.names], "line": node.lineno, "end": node.end_lineno})
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            uses.append([node.id, node.lineno, node.col_offset])
    out[path] = {"defs": defs, "imports": imports, "uses": uses}
json.dump(out, sys.stdout)
`;

interface PythonFacts {
    defs: Record<string, number[]>;
    imports: Array<{ module: string; level: number; names: Array<[string, string]>; line: number; end: number }>;
    uses: Array<[string, number, number]>;
}

function pythonAvailable(): boolean {
    try {
        execFileSync('python3', ['-c', 'import ast'], { stdio: 'ignore' });
        return true;
    } catch {
        return false;
    }
}

function pythonCases(project: ContextProject): ContextCase[] {
    // pip's absolute imports (`pip._internal.x`) start above the package.
    const base = dirname(project.root);
    const files = sourcesUnder(project.root, ['.py']);
    const facts = JSON.parse(execFileSync('python3', ['-c', PYTHON_READER], { input: JSON.stringify(files), maxBuffer: 256 * 1024 * 1024 }).toString('utf8')) as Record<string, PythonFacts>;
    const resolve = (module: string, level: number, from: string): string | undefined => {
        let folder = level > 0 ? dirname(from) : base;
        for (let up = 1; up < level; up++) {
            folder = dirname(folder);
        }
        const path = join(folder, ...module.split('.').filter(Boolean));
        return [`${path}.py`, join(path, '__init__.py')].find(candidate => facts[candidate] !== undefined);
    };
    const definition = (file: string, name: string, depth: number): { file: string; lines: string[] } | undefined => {
        const own = facts[file]?.defs[name];
        if (own) {
            const lines = readFileSync(file, 'utf8').split('\n');
            return { file, lines: own.map(line => lines[line - 1].trim()) };
        }
        // A package passing a name on: `from .x import name` in its module.
        const passed = depth < 4 ? facts[file]?.imports.find(item => item.names.some(([, local]) => local === name)) : undefined;
        const target = passed && resolve(passed.module, passed.level, file);
        return target ? definition(target, passed!.names.find(([, local]) => local === name)![0], depth + 1) : undefined;
    };
    const cases: ContextCase[] = [];
    for (const file of project.files) {
        const own = facts[file];
        if (!own) {
            continue;
        }
        const text = readFileSync(file, 'utf8');
        const lines = text.split('\n');
        const importLines = new Set(own.imports.flatMap(item => Array.from({ length: item.end - item.line + 1 }, (_, i) => item.line + i)));
        const imported = new Map<string, { target: string; name: string }>();
        for (const statement of own.imports) {
            const target = resolve(statement.module, statement.level, file);
            for (const [name, local] of target ? statement.names : []) {
                imported.set(local, { target: target!, name });
            }
        }
        for (const [name, line, column] of own.uses) {
            const from = imported.get(name);
            const found = from && !importLines.has(line) ? definition(from.target, from.name, 0) : undefined;
            if (found && found.file !== file) {
                // ast counts columns in UTF-8 bytes.
                const lineStart = lines.slice(0, line - 1).reduce((sum, item) => sum + item.length + 1, 0);
                const chars = Buffer.from(lines[line - 1], 'utf8').subarray(0, column).toString('utf8').length;
                cases.push(caseAt(project.name, file, text, lineStart + chars, name, found));
            }
        }
    }
    return cases;
}

/** The case at an offset: the rest of its line is removed (the user is about to type it). */
function caseAt(project: string, file: string, text: string, offset: number, symbol: string, definition: { file: string; lines: string[] }): ContextCase {
    const lineEnd = text.indexOf('\n', offset);
    const typed = lineEnd === -1 ? text.slice(0, offset) : text.slice(0, offset) + text.slice(lineEnd);
    return { project, file, text: typed, offset, symbol, definitionFile: definition.file, definitionLines: [...new Set(definition.lines)] };
}

/** Same-folder files of the same kind, the nearest by name first: the tabs a user working on `file` plausibly has open. */
export function directoryNeighbours(file: string, count: number): string[] {
    const folder = dirname(file);
    const extension = file.slice(file.lastIndexOf('.'));
    const siblings = readdirSync(folder).filter(name => name.endsWith(extension) && !/\.(spec|test)\.|\.d\.ts$/.test(name)).map(name => join(folder, name))
        .filter(path => path !== file && statSync(path).isFile()).sort();
    const all = [...siblings, file].sort();
    const at = all.indexOf(file);
    return siblings.map(path => ({ path, distance: Math.abs(all.indexOf(path) - at) })).sort((a, b) => a.distance - b.distance || a.path.localeCompare(b.path))
        .slice(0, count).map(entry => entry.path);
}

function seeded(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
        state = (state * 1664525 + 1013904223) >>> 0;
        return state / 2 ** 32;
    };
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy;
}
