import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import * as ts from 'typescript';

export interface LayeringViolation {
    file: string;
    line: number;
    rule: string;
}

interface ImportRef {
    specifier: string;
    typeOnly: boolean;
    line: number;
}

/** Globals that only exist in a browser; core code must not touch them. */
const DOM_GLOBALS = new Set(['window', 'document', 'navigator', 'localStorage', 'sessionStorage', 'HTMLElement',
    'Element', 'DOMParser', 'XMLHttpRequest', 'requestAnimationFrame', 'location', 'MutationObserver']);

/** Core folders by layer (docs/ARCHITECTURE.md §2): a folder may import its own layer and below. A folder missing here fails the layering spec. */
const CORE_LAYER: Record<string, number> = {
    protocol: 0, ports: 0, wire: 0, config: 1, prompt: 2, agents: 2, session: 2, context: 2,
    tools: 3, skills: 3, mcp: 3, acp: 3, checkpoints: 3, features: 4, runtime: 4, 'bench-cli': 5, 'acp-server': 5
};

/**
 * Imports the layer numbers allow but the design forbids: history types live in context/ so
 * context never reaches up into session/, prompt/ (the template language) knows nothing of how
 * context is gathered (context/ fills its values), and load_skill reaches tools/ as a plain tool.
 */
const CORE_FORBIDDEN: Record<string, readonly string[]> = {
    context: ['session'],
    prompt: ['context'],
    tools: ['skills']
};

const NODE_BUILTINS = new Set(builtinModules);

/** The one entry of core the browser and common may load values from: it imports nothing. */
const CORE_PROTOCOL = '@qodeassist/core/protocol';

function isNodeBuiltin(specifier: string): boolean {
    return specifier.startsWith('node:') || NODE_BUILTINS.has(specifier.split('/')[0]);
}

function collectImports(source: ts.SourceFile): { imports: ImportRef[]; domGlobals: Array<{ name: string; line: number }> } {
    const imports: ImportRef[] = [];
    const domGlobals: Array<{ name: string; line: number }> = [];
    const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    const visit = (node: ts.Node): void => {
        if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
            const clause = node.importClause;
            const typeOnly = !!clause && (clause.isTypeOnly
                || (!clause.name && !!clause.namedBindings && ts.isNamedImports(clause.namedBindings)
                    && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every(e => e.isTypeOnly)));
            imports.push({ specifier: node.moduleSpecifier.text, typeOnly, line: lineOf(node) });
        } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
            imports.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly, line: lineOf(node) });
        } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0])
            && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
            imports.push({ specifier: node.arguments[0].text, typeOnly: false, line: lineOf(node) });
        } else if (ts.isIdentifier(node) && DOM_GLOBALS.has(node.text) && isFreeIdentifier(node)) {
            domGlobals.push({ name: node.text, line: lineOf(node) });
        }
        ts.forEachChild(node, visit);
    };
    visit(source);
    return { imports, domGlobals };
}

/** An identifier that refers to a global rather than naming a property, member or declaration. */
function isFreeIdentifier(node: ts.Identifier): boolean {
    const parent = node.parent;
    if (ts.isPropertyAccessExpression(parent) && parent.name === node) {
        return false;
    }
    if (ts.isQualifiedName(parent) && parent.right === node) {
        return false;
    }
    if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertySignature(parent)
        || ts.isMethodDeclaration(parent) || ts.isParameter(parent) || ts.isVariableDeclaration(parent)
        || ts.isImportSpecifier(parent) || ts.isBindingElement(parent)) && parent.name === node) {
        return false;
    }
    return !ts.isTypeReferenceNode(parent);
}

/** Whether a top-level statement makes a value at run time (a class, function, constant, enum or code), not only a type. */
function declaresValue(statement: ts.Statement): boolean {
    if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isImportDeclaration(statement)) {
        return false;
    }
    if (ts.isExportDeclaration(statement)) {
        return !statement.isTypeOnly && !!statement.moduleSpecifier;
    }
    if (ts.isModuleDeclaration(statement) || ts.isEnumDeclaration(statement)) {
        return !(ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Ambient) || ts.isEnumDeclaration(statement);
    }
    return true;
}

/** Checks one source file, given its path relative to the repository root with `/` separators. */
export function checkSource(path: string, text: string): LayeringViolation[] {
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const { imports, domGlobals } = collectImports(source);
    const violations: LayeringViolation[] = [];
    const report = (line: number, rule: string) => violations.push({ file: path, line, rule });

    const core = /^qodeassist-core\/src\/([^/]+)\//.exec(path);
    if (core) {
        const layer = CORE_LAYER[core[1]];
        if (layer === undefined) {
            report(1, `the core folder ${core[1]}/ has no layer: add it to CORE_LAYER and docs/ARCHITECTURE.md §2`);
        }
        if (core[1] === 'protocol' && !/\.spec\.tsx?$/.test(path)) {
            for (const ref of imports) {
                report(ref.line, `protocol/ is the entry the browser loads and imports nothing (${ref.specifier})`);
            }
        }
        if (core[1] === 'ports' && !/\.spec(-support)?\.tsx?$/.test(path)) {
            for (const statement of source.statements) {
                if (declaresValue(statement)) {
                    report(source.getLineAndCharacterOfPosition(statement.getStart(source)).line + 1, 'ports/ declares the interfaces a host implements, types only: put a class, function or constant beside what uses it');
                }
            }
        }
        for (const ref of imports) {
            if (ref.specifier.startsWith('@theia/')) {
                report(ref.line, `qodeassist-core must not import Theia (${ref.specifier})`);
            }
            if (/^react(-dom)?(\/|$)/.test(ref.specifier)) {
                report(ref.line, `qodeassist-core must not import React (${ref.specifier})`);
            }
            const target = resolveCoreFolder(path, ref.specifier);
            if (target && layer !== undefined && CORE_LAYER[target] !== undefined && CORE_LAYER[target] > layer) {
                report(ref.line, `${core[1]} (layer ${layer}) must not import the higher layer ${target} (layer ${CORE_LAYER[target]})`);
            }
            if (target && CORE_FORBIDDEN[core[1]]?.includes(target)) {
                report(ref.line, `${core[1]} must not import ${target}`);
            }
            const feature = /^qodeassist-core\/src\/features\/([^/]+)\//.exec(path)?.[1];
            const targetFeature = target === 'features' ? resolveFeature(path, ref.specifier) : undefined;
            if (feature && targetFeature && targetFeature !== feature) {
                report(ref.line, `feature ${feature} must not import feature ${targetFeature}`);
            }
        }
        for (const global of domGlobals) {
            report(global.line, `qodeassist-core must not use the DOM global ${global.name}`);
        }
    }

    const theia = /^qodeassist-theia\/src\/(common|browser|node|electron-[a-z]+)\//.exec(path);
    if (theia) {
        const side = theia[1];
        for (const ref of imports) {
            const spec = ref.specifier;
            if (side === 'common') {
                if (!ref.typeOnly && isNodeBuiltin(spec)) {
                    report(ref.line, `common must not import Node code (${spec})`);
                }
                if (/\/lib\/(node|browser|electron-[a-z]+)\//.test(spec) || /^\.\.\/(node|browser)\//.test(spec) || /^react(-dom)?(\/|$)|shared\/react/.test(spec)) {
                    report(ref.line, `common must not import browser or Node code (${spec})`);
                }
                if (!ref.typeOnly && spec.startsWith('@qodeassist/core') && spec !== CORE_PROTOCOL) {
                    report(ref.line, `common may import @qodeassist/core only as types (it is Node code), values only from ${CORE_PROTOCOL}`);
                }
            }
            if (side === 'browser') {
                // Specs run under mocha in Node, so they may use Node's assert and fs.
                const nodeBuiltinAllowed = path.endsWith('.spec.ts') || path.endsWith('.spec.tsx');
                if (/^\.\.?\/(\.\.\/)*node\//.test(spec) || /\/lib\/node\//.test(spec) || (!ref.typeOnly && !nodeBuiltinAllowed && isNodeBuiltin(spec))) {
                    report(ref.line, `browser must not import Node code (${spec})`);
                }
                if (!ref.typeOnly && spec.startsWith('@qodeassist/core') && spec !== CORE_PROTOCOL) {
                    report(ref.line, `browser may import @qodeassist/core only as types (it runs in the backend), values only from ${CORE_PROTOCOL}`);
                }
                // What the chat shares with the refactor, MCP and the rest (prompts, error view, tool-host client) lives in browser/shared.
                const folder = /^qodeassist-theia\/src\/browser\/([^/]+)\//.exec(path)?.[1];
                if (folder && folder !== 'chat' && spec.startsWith('.') && /^qodeassist-theia\/src\/browser\/chat(\/|$)/.test(join(path, '..', spec).split(sep).join('/'))) {
                    report(ref.line, `browser/${folder} must not import browser/chat (${spec}); shared code belongs in browser/shared`);
                }
            }
            if (side === 'node' && (/^\.\.?\/(\.\.\/)*browser\//.test(spec) || /\/lib\/browser\//.test(spec) || /^react(-dom)?(\/|$)|shared\/react/.test(spec))) {
                report(ref.line, `node must not import browser code (${spec})`);
            }
        }
    }
    return violations;
}

function resolveCoreFolder(path: string, specifier: string): string | undefined {
    if (!specifier.startsWith('.')) {
        return undefined;
    }
    const resolved = join(path, '..', specifier).split(sep).join('/');
    return /^qodeassist-core\/src\/([^/]+)/.exec(resolved)?.[1];
}

function resolveFeature(path: string, specifier: string): string | undefined {
    const resolved = join(path, '..', specifier).split(sep).join('/');
    return /^qodeassist-core\/src\/features\/([^/]+)/.exec(resolved)?.[1];
}

/**
 * Import cycles among the given sources (path relative to the repository root → text). Type-only
 * and dynamic imports count: a cycle of types still ties the files together. Each strongly
 * connected group of files is reported once, at the first file by name, with its shortest cycle.
 */
export function checkImportCycles(sources: ReadonlyMap<string, string>): LayeringViolation[] {
    const edges = new Map<string, Array<{ to: string; line: number }>>();
    for (const [path, text] of sources) {
        const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
        const targets: Array<{ to: string; line: number }> = [];
        for (const ref of collectImports(source).imports) {
            const to = resolveSource(path, ref.specifier, sources);
            if (to && !targets.some(t => t.to === to)) {
                targets.push({ to, line: ref.line });
            }
        }
        edges.set(path, targets);
    }
    const violations: LayeringViolation[] = [];
    for (const group of stronglyConnected([...sources.keys()].sort(), edges)) {
        const start = [...group].sort()[0];
        const cycle = shortestCycle(start, group, edges);
        if (!cycle) {
            continue;
        }
        const short = (file: string) => file.replace(/^qodeassist-core\/src\//, '');
        const others = [...group].filter(file => !cycle.includes(file)).sort();
        const line = edges.get(start)!.find(edge => edge.to === (cycle[1] ?? start))!.line;
        violations.push({
            file: start, line,
            rule: `import cycle: ${[...cycle, start].map(short).join(' → ')}${others.length ? ` (also tied in: ${others.map(short).join(', ')})` : ''}`
        });
    }
    return violations;
}

function resolveSource(path: string, specifier: string, sources: ReadonlyMap<string, string>): string | undefined {
    if (!specifier.startsWith('.')) {
        return undefined;
    }
    const base = join(dirname(path), specifier).split(sep).join('/').replace(/\.js$/, '');
    return [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find(candidate => sources.has(candidate));
}

/** Tarjan's strongly connected components; only groups that hold a cycle (two files or more, or a self-import). */
function stronglyConnected(nodes: readonly string[], edges: ReadonlyMap<string, ReadonlyArray<{ to: string }>>): Array<Set<string>> {
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const groups: Array<Set<string>> = [];
    const visit = (node: string): void => {
        index.set(node, index.size);
        low.set(node, index.get(node)!);
        stack.push(node);
        onStack.add(node);
        for (const { to } of edges.get(node) ?? []) {
            if (!index.has(to)) {
                visit(to);
                low.set(node, Math.min(low.get(node)!, low.get(to)!));
            } else if (onStack.has(to)) {
                low.set(node, Math.min(low.get(node)!, index.get(to)!));
            }
        }
        if (low.get(node) === index.get(node)) {
            const group = new Set<string>();
            let member: string;
            do {
                member = stack.pop()!;
                onStack.delete(member);
                group.add(member);
            } while (member !== node);
            if (group.size > 1 || (edges.get(node) ?? []).some(edge => edge.to === node)) {
                groups.push(group);
            }
        }
    };
    for (const node of nodes) {
        if (!index.has(node)) {
            visit(node);
        }
    }
    return groups;
}

/** The shortest path from start back to start inside the group (breadth first), as the list of files visited. */
function shortestCycle(start: string, group: ReadonlySet<string>, edges: ReadonlyMap<string, ReadonlyArray<{ to: string }>>): string[] | undefined {
    const previous = new Map<string, string>();
    const queue = [start];
    while (queue.length) {
        const node = queue.shift()!;
        for (const { to } of edges.get(node) ?? []) {
            if (to === start) {
                const path = [node];
                while (path[0] !== start) {
                    path.unshift(previous.get(path[0])!);
                }
                return path;
            }
            if (group.has(to) && !previous.has(to)) {
                previous.set(to, node);
                queue.push(to);
            }
        }
    }
    return undefined;
}

/** Every TypeScript source below the given package folders, checked. */
export function checkRepository(root: string, packages: readonly string[]): { violations: LayeringViolation[]; filesChecked: number } {
    const violations: LayeringViolation[] = [];
    const coreSources = new Map<string, string>();
    let filesChecked = 0;
    const walk = (dir: string): void => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
            const full = join(dir, entry.name);
            if (entry.isDirectory()) {
                walk(full);
            } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
                filesChecked++;
                const path = relative(root, full).split(sep).join('/');
                const text = readFileSync(full, 'utf8');
                violations.push(...checkSource(path, text));
                if (path.startsWith('qodeassist-core/src/')) {
                    coreSources.set(path, text);
                }
            }
        }
    };
    for (const pkg of packages) {
        walk(join(root, pkg, 'src'));
    }
    violations.push(...checkImportCycles(coreSources));
    return { violations, filesChecked };
}
