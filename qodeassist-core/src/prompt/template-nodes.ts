import * as nunjucks from 'nunjucks';
import { TEMPLATE_LIMITS } from './template-limits';
import { isForbiddenSymbol, symbolRefused, TemplateSandboxError } from './template-policy';

/** The shape of a node of nunjucks' parser (src/nodes.js); `typename` tells the kind. */
export interface AstNode {
    typename: string;
    /** 0-based. */
    lineno: number;
    colno: number;
    fields: readonly string[];
    [field: string]: unknown;
}

/** What the nunjucks lexer and parser are told; whitespace control (`{%-`, `-%}`, trimBlocks, lstripBlocks) happens there. */
export const PARSE_OPTIONS = { autoescape: false, throwOnUndefined: false, trimBlocks: true, lstripBlocks: true } as const;

const TemplateError = (nunjucks as unknown as { lib: { TemplateError: new (...args: unknown[]) => Error } }).lib.TemplateError;

/** A syntax error from nunjucks' lexer or parser (nunjucks' TemplateError), with its line and column. */
export function isTemplateSyntaxError(error: unknown): error is Error & { lineno?: number; colno?: number } {
    return error instanceof TemplateError;
}

/** A name in any position: a variable, set target, loop name, macro and argument name, import alias, filter, test, block. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const COMPARE_OPERATORS = new Set(['==', '===', '!=', '!==', '<', '>', '<=', '>=']);

interface Registered {
    filters: ReadonlySet<string>;
    tests: ReadonlySet<string>;
}

type Check = (node: AstNode, walk: Walker) => void;

/**
 * Every node type a template may contain, with how its fields are checked: the interpreter runs
 * exactly these. Any other type (custom tags, async variants, regex literals) is refused at load.
 */
const NODE_TYPES: Readonly<Record<string, Check>> = {
    Root: (node, walk) => walk.list(node.children),
    NodeList: (node, walk) => walk.list(node.children),
    Output: (node, walk) => walk.list(node.children),
    TemplateData: node => {
        if (typeof node.value !== 'string') {
            throw refuse('template text that is not text', node);
        }
    },
    Literal: node => {
        const value = node.value;
        if (!(value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')) {
            throw refuse('a literal that is not text, a number, true, false or none (regular expressions are not supported)', node);
        }
    },
    Symbol: (node, walk) => walk.name(node, 'name'),
    Group: (node, walk) => walk.list(node.children),
    Array: (node, walk) => walk.list(node.children),
    Dict: (node, walk) => walk.pairs(node.children, 'key'),
    LookupVal: (node, walk) => walk.required(node, node.target, node.val),
    If: (node, walk) => {
        walk.required(node, node.cond, node.body);
        walk.nodes(node.else_);
    },
    InlineIf: (node, walk) => {
        walk.required(node, node.cond, node.body);
        walk.nodes(node.else_);
    },
    For: (node, walk) => {
        const name = node.name as AstNode;
        for (const target of name?.typename === 'Array' ? name.children as AstNode[] : [name]) {
            walk.name(target, 'loop variable');
        }
        walk.required(node, node.arr, node.body);
        walk.nodes(node.else_);
    },
    Macro: (node, walk) => {
        walk.name(node.name, 'macro name');
        walk.signature(node.args);
        walk.required(node, node.body);
    },
    Caller: (node, walk) => {
        walk.signature(node.args);
        walk.required(node, node.body);
    },
    Import: (node, walk) => {
        walk.templateName(node);
        walk.name(node.target, 'import alias');
    },
    FromImport: (node, walk) => {
        walk.templateName(node);
        for (const imported of ((node.names as AstNode)?.children ?? []) as AstNode[]) {
            if (imported?.typename === 'Pair') {
                walk.name(imported.key, 'imported name');
                walk.name(imported.value, 'import alias');
            } else {
                walk.name(imported, 'imported name');
            }
        }
    },
    FunCall: (node, walk) => {
        walk.required(node, node.name);
        walk.args(node.args);
    },
    Filter: (node, walk) => {
        walk.registered(node.name, 'filter');
        walk.args(node.args);
    },
    Block: (node, walk) => {
        walk.name(node.name, 'block name');
        walk.required(node, node.body);
    },
    Extends: (node, walk) => walk.templateName(node),
    Include: (node, walk) => walk.templateName(node),
    Set: (node, walk) => {
        for (const target of (node.targets ?? []) as AstNode[]) {
            walk.name(target, 'variable');
        }
        walk.required(node, node.value ?? node.body);
    },
    Capture: (node, walk) => walk.required(node, node.body),
    Switch: (node, walk) => {
        walk.required(node, node.expr);
        walk.nodes(node.default);
        for (const item of (node.cases ?? []) as AstNode[]) {
            walk.expect(item, 'Case');
            walk.required(item, item.cond, item.body);
        }
    },
    Is: (node, walk) => {
        walk.required(node, node.left);
        const test = node.right as AstNode;
        if (test?.typename === 'FunCall') {
            walk.registered(test.name, 'test');
            walk.args(test.args);
        } else if (test?.typename === 'Literal' && test.value === null) {
            walk.registered({ ...test, typename: 'Symbol', value: 'none' }, 'test');
        } else {
            walk.registered(test, 'test');
        }
    },
    Compare: (node, walk) => {
        walk.required(node, node.expr);
        for (const operand of (node.ops ?? []) as AstNode[]) {
            walk.expect(operand, 'CompareOperand');
            if (!COMPARE_OPERATORS.has(String(operand.type))) {
                throw refuse(`the comparison "${String(operand.type)}"`, operand);
            }
            walk.required(operand, operand.expr);
        }
    },
    ...Object.fromEntries(['Not', 'Neg', 'Pos'].map(type => [type, (node: AstNode, walk: Walker) => walk.required(node, node.target)])),
    ...Object.fromEntries(['In', 'Or', 'And', 'Add', 'Concat', 'Sub', 'Mul', 'Div', 'FloorDiv', 'Mod', 'Pow']
        .map(type => [type, (node: AstNode, walk: Walker) => walk.required(node, node.left, node.right)]))
};

function line(node: AstNode | undefined): number | undefined {
    return typeof node?.lineno === 'number' ? node.lineno + 1 : undefined;
}

function refuse(what: string, node: AstNode | undefined): TemplateSandboxError {
    return new TemplateSandboxError(`${what} is not allowed in templates`, 'use only nunjucks\' built-in tags, filters and tests', line(node));
}

class Walker {
    private depth = 0;

    constructor(private readonly registered_: Registered) { }

    node(node: unknown): void {
        if (node === null || node === undefined) {
            return;
        }
        const typed = node as AstNode;
        const check = typeof typed.typename === 'string' && Object.hasOwn(NODE_TYPES, typed.typename) ? NODE_TYPES[typed.typename] : undefined;
        if (!check) {
            const kind = typeof typed.typename === 'string' ? typed.typename : typeof node;
            throw /^CallExtension/.test(kind)
                ? new TemplateSandboxError('template extensions are not allowed in templates', 'remove the custom tag', line(typed))
                : refuse(`the construct ${kind}`, typed);
        }
        if (++this.depth > TEMPLATE_LIMITS.MAX_SYNTAX_DEPTH) {
            throw new TemplateSandboxError(`the template is nested more than MAX_SYNTAX_DEPTH (${TEMPLATE_LIMITS.MAX_SYNTAX_DEPTH}) levels deep`,
                'nest brackets, tags and expressions less deeply', line(typed));
        }
        check(typed, this);
        this.depth--;
    }

    nodes(...nodes: unknown[]): void {
        nodes.forEach(node => this.node(node));
    }

    /** Fields the interpreter reads without a fallback: a parse that left one empty is refused. */
    required(parent: AstNode, ...nodes: unknown[]): void {
        for (const node of nodes) {
            if (node === null || node === undefined) {
                throw refuse(`an incomplete ${parent.typename} (a part of it is missing)`, parent);
            }
            this.node(node);
        }
    }

    list(children: unknown): void {
        if (!Array.isArray(children)) {
            throw refuse('a malformed node list', undefined);
        }
        children.forEach(child => this.required({ typename: 'list' } as AstNode, child));
    }

    expect(node: unknown, typename: string): void {
        if ((node as AstNode)?.typename !== typename) {
            throw refuse(`the construct ${String((node as AstNode)?.typename)} in place of ${typename}`, node as AstNode);
        }
    }

    name(node: unknown, role: string): void {
        this.expect(node, 'Symbol');
        const symbol = node as AstNode;
        const name = symbol.value;
        if (typeof name !== 'string' || isForbiddenSymbol(name)) {
            throw symbolRefused(String(name), line(symbol));
        }
        if (!NAME.test(name)) {
            throw new TemplateSandboxError(`the ${role} ${JSON.stringify(name)} is not a plain name; names are letters, digits and _`,
                'rename it to letters, digits and underscores, starting with a letter', line(symbol));
        }
    }

    registered(node: unknown, kind: 'filter' | 'test'): void {
        const symbol = node as AstNode;
        const name = symbol?.typename === 'Symbol' && typeof symbol.value === 'string' ? symbol.value : undefined;
        const known = kind === 'filter' ? this.registered_.filters : this.registered_.tests;
        // A registered name is a plain name (the environment registers only those), so this is an allowlist of names too.
        if (name === undefined || !known.has(name) || !NAME.test(name)) {
            throw new TemplateSandboxError(`the ${kind} "${String(name ?? symbol?.value)}" is not a registered ${kind}`,
                `use one of nunjucks' ${kind}s${kind === 'filter' ? ' or json' : ''}, e.g. ${kind === 'filter' ? '| dump' : 'is defined'}`, line(symbol));
        }
    }

    /** Macro and call-block parameters: names, then `name = default` pairs. */
    signature(args: unknown): void {
        for (const arg of ((args as AstNode)?.children ?? []) as AstNode[]) {
            if (arg?.typename === 'KeywordArgs') {
                this.pairs(arg.children, 'parameter');
            } else {
                this.name(arg, 'parameter');
            }
        }
    }

    /** Call arguments: expressions, then `name = value` keyword arguments. */
    args(args: unknown): void {
        for (const arg of ((args as AstNode)?.children ?? []) as AstNode[]) {
            if (arg?.typename === 'KeywordArgs') {
                this.pairs(arg.children, 'keyword');
            } else {
                this.required(args as AstNode, arg);
            }
        }
    }

    /** Dict entries (`key` may be quoted text) or keyword pairs (the key is a name). */
    pairs(children: unknown, role: 'key' | 'parameter' | 'keyword'): void {
        for (const pair of (Array.isArray(children) ? children : []) as AstNode[]) {
            this.expect(pair, 'Pair');
            const key = pair.key as AstNode;
            if (role === 'key' && key?.typename === 'Literal') {
                if (typeof key.value !== 'string') {
                    throw refuse('a dict key that is not text or a name', key);
                }
            } else {
                this.name(key, role === 'key' ? 'key' : `${role} name`);
            }
            this.required(pair, pair.value);
        }
    }

    templateName(node: AstNode): void {
        const name = node.template as AstNode;
        if (name?.typename !== 'Literal' || typeof name.value !== 'string') {
            throw new TemplateSandboxError(`${node.typename.toLowerCase()} with a computed template name is not allowed in templates; the partial must be known at load time`,
                'write the partial name as a quoted string', line(node));
        }
    }
}

/**
 * Parses template text with nunjucks' parser only (nothing is compiled to JavaScript) and checks
 * that every node is of a type the interpreter runs, every name a plain name and every literal
 * plain data. `partial` names the partial in errors. Syntax errors are nunjucks' own TemplateError.
 */
export function parseTemplate(source: string, path: string, registered: Registered, partial?: string): AstNode {
    let root: AstNode;
    try {
        root = (nunjucks as unknown as { parser: { parse(src: string, extensions: unknown[], opts: unknown): AstNode } })
            .parser.parse(source, [], PARSE_OPTIONS);
    } catch (error) {
        if (isTemplateSyntaxError(error)) {
            // nunjucks' own error, its message prefixed with the path and line as nunjucks does: "(path) [Line 1, Column 5] …".
            throw (error as unknown as { Update(path: string): Error }).Update(path);
        }
        // The parser recurses per bracket: text nested deeply enough overflows the stack before any check runs.
        throw withPartial(new TemplateSandboxError(`the template could not be parsed: ${error instanceof Error ? error.message : String(error)}`,
            'nest brackets, tags and expressions less deeply'), partial);
    }
    try {
        checkTemplateTree(root, registered);
    } catch (error) {
        throw error instanceof TemplateSandboxError ? withPartial(error, partial) : error;
    }
    return root;
}

/** Refuses, with the 1-based line, any node type not in NODE_TYPES, any name that is not plain, any literal that is not plain data. */
export function checkTemplateTree(root: AstNode, registered: Registered): void {
    new Walker(registered).node(root);
}

export function withPartial(error: TemplateSandboxError, partial: string | undefined): TemplateSandboxError {
    return partial === undefined || error.partial !== undefined ? error : new TemplateSandboxError(error.reason, error.fix, error.line, partial);
}
