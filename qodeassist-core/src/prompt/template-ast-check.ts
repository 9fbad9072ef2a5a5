import { AstNode } from './template-nodes';
import {
    callRefused, computedMemberRefused, FIXES, isForbiddenMember, isForbiddenSymbol, memberRefused, SAFE_METHODS, symbolRefused, TemplateSandboxError
} from './template-policy';

export { AstNode } from './template-nodes';

/** The names a template may call besides data methods: the environment's globals, and the filters and tests it may name. */
export interface AstCheckScope {
    globals: readonly string[];
    /** Registered filters: nunjucks looks a filter name up at run time, in a plain object (`valueOf` would be found). */
    filters?: readonly string[];
    tests?: readonly string[];
}

const ARITHMETIC = new Set(['Add', 'Sub', 'Mul', 'Div', 'FloorDiv', 'Mod', 'Pow', 'Neg', 'Pos']);
const TEMPLATE_REFERENCES = new Set(['Include', 'Import', 'FromImport', 'Extends']);
/** Filters whose result on constant text is itself constant, so `{% set k = "CONSTRUCTOR" | lower %}` is seen through. */
const FOLDABLE_FILTERS: Record<string, (value: string, args: string[]) => string> = {
    lower: value => value.toLowerCase(),
    upper: value => value.toUpperCase(),
    capitalize: value => value.charAt(0).toUpperCase() + value.slice(1).toLowerCase(),
    title: value => value.replace(/\w\S*/g, word => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase()),
    trim: value => value.trim(),
    string: value => value,
    reverse: value => [...value].reverse().join(''),
    replace: (value, [from, to]) => (from === undefined ? value : value.split(from).join(to ?? ''))
};
const MAX_FOLDED = 256;

/**
 * Refuses, before a template ever runs, member access to constructors and prototypes, calls of
 * anything but registered functions, macros and safe data methods, computed member names that
 * cannot be checked, and includes whose name is not a literal. Throws TemplateSandboxError with
 * the 1-based line. The interpreter (template-values.ts) enforces the same rules on what only data decides.
 */
export function checkTemplateAst(root: AstNode, scope: AstCheckScope): void {
    new AstChecker(root, scope).check(root);
}

class AstChecker {
    private readonly callables = new Set<string>(['caller']);
    private readonly namespaces = new Set<string>();
    /** Every constant string a name is ever bound to (flow-insensitive): `{% set k = "constr" ~ "uctor" %}` and `{% for k in [...] %}`. */
    private readonly constants = new Map<string, Set<string>>();

    constructor(root: AstNode, private readonly scope: AstCheckScope) {
        scope.globals.forEach(name => this.callables.add(name));
        this.collectBindings(root);
    }

    check(node: unknown): void {
        if (Array.isArray(node)) {
            node.forEach(child => this.check(child));
            return;
        }
        if (!isNode(node)) {
            return;
        }
        switch (node.typename) {
            case 'Symbol':
                this.checkSymbol(node);
                return;
            case 'LookupVal':
                // In reading order, so `x.__proto__.constructor` is refused for "__proto__", the first step out.
                this.check(node.target);
                this.checkMemberName(node.val as AstNode, node);
                return;
            case 'FunCall':
                // The callee's own members first: `range.constructor(…)` is refused for "constructor", the clearer cause.
                this.check(node.name);
                this.checkCallee(node.name as AstNode, node);
                this.check(node.args);
                return;
            case 'Filter':
            case 'FilterAsync':
                // nunjucks finds the filter by name only when it runs: a name that is not registered is refused here.
                this.checkRegistered('filter', node.name as AstNode, this.scope.filters);
                this.checkTestArgument(node);
                this.check(node.args);
                return;
            case 'Is': {
                this.check(node.left);
                // `x is divisibleby(3)`: the test is the call's name, its arguments are checked as any others.
                const test = node.right as AstNode;
                const isCall = test?.typename === 'FunCall';
                this.checkRegistered('test', isCall ? test.name as AstNode : test?.typename === 'Literal' && test.value === null ? { ...test, value: 'none' } : test, this.scope.tests);
                if (isCall) {
                    this.check(test.args);
                }
                return;
            }
            case 'Pair':
                this.checkKey(node.key as AstNode);
                this.check(node.value);
                return;
            case 'CallExtension':
            case 'CallExtensionAsync':
                throw new TemplateSandboxError('template extensions are not allowed in templates', 'remove the custom tag', line(node));
        }
        if (TEMPLATE_REFERENCES.has(node.typename)) {
            this.checkTemplateName(node);
        }
        for (const field of node.fields) {
            this.check(node[field]);
        }
    }

    /** `select("name")` and `reject("name")` look a test up by that name when they run. */
    private checkTestArgument(node: AstNode): void {
        const filter = (node.name as AstNode | undefined)?.value;
        const args = ((node.args as AstNode | undefined)?.children ?? []) as AstNode[];
        if ((filter === 'select' || filter === 'reject') && args[1]) {
            if (args[1].typename !== 'Literal') {
                throw new TemplateSandboxError(`the test given to ${String(filter)} must be a literal name`, 'write it as text, e.g. select("odd")', line(node));
            }
            this.checkRegistered('test', args[1], this.scope.tests);
        }
    }

    private checkRegistered(kind: 'filter' | 'test', node: AstNode, registered: readonly string[] | undefined): void {
        const name = typeof node?.value === 'string' ? node.value : undefined;
        if (registered && (name === undefined || !registered.includes(name))) {
            throw new TemplateSandboxError(`the ${kind} "${String(name)}" is not a registered ${kind}`,
                `use one of nunjucks' ${kind}s${kind === 'filter' ? ' or json' : ''}, e.g. ${kind === 'filter' ? '| dump' : 'is defined'}`, line(node));
        }
    }

    private checkSymbol(node: AstNode): void {
        const name = String(node.value);
        if (isForbiddenSymbol(name)) {
            throw symbolRefused(name, line(node));
        }
    }

    private checkMemberName(key: AstNode, at: AstNode): void {
        key = unwrap(key);
        const folded = this.fold(key);
        for (const name of folded ?? []) {
            if (isForbiddenMember(name)) {
                throw memberRefused(name, line(at));
            }
        }
        if (folded === undefined && !this.isDataKey(key)) {
            throw computedMemberRefused(line(at));
        }
    }

    /** A key the interpreter can judge as data: a variable, a data path, or arithmetic without text. */
    private isDataKey(key: AstNode): boolean {
        key = unwrap(key);
        if (key.typename === 'Symbol' || key.typename === 'LookupVal') {
            return true;
        }
        if (key.typename === 'Literal') {
            return typeof key.value !== 'string';
        }
        if (ARITHMETIC.has(key.typename)) {
            return ['left', 'right', 'target'].every(field => key[field] === undefined || key[field] === null || this.isDataKey(key[field] as AstNode));
        }
        return false;
    }

    private checkCallee(callee: AstNode, call: AstNode): void {
        callee = unwrap(callee);
        if (callee.typename === 'Symbol') {
            if (!this.callables.has(String(callee.value))) {
                throw callRefused(`"${String(callee.value)}"`, line(call));
            }
            return;
        }
        if (callee.typename === 'LookupVal') {
            const member = unwrap(callee.val as AstNode);
            const name = member.typename === 'Literal' && typeof member.value === 'string' ? member.value : undefined;
            const target = unwrap(callee.target as AstNode);
            if (name !== undefined && (SAFE_METHODS.has(name) || (target.typename === 'Symbol' && this.namespaces.has(String(target.value))))) {
                return;
            }
            throw callRefused(name !== undefined ? `".${name}"` : 'a computed member', line(call));
        }
        throw callRefused('the result of an expression', line(call));
    }

    private checkKey(key: AstNode): void {
        const name = key.typename === 'Symbol' || key.typename === 'Literal' ? String(key.value) : undefined;
        // Only `__proto__` changes what a literal is made from; the other forbidden names are plain keys in a literal.
        if (name !== undefined && name.startsWith('__')) {
            throw new TemplateSandboxError(`the key "${name}" is not allowed in templates; it would reach an object's prototype`, FIXES.key, line(key));
        }
        if (name === undefined) {
            this.check(key);
        }
    }

    private checkTemplateName(node: AstNode): void {
        const name = unwrap(node.template as AstNode);
        if (name.typename !== 'Literal' || typeof name.value !== 'string') {
            throw new TemplateSandboxError(`${node.typename.toLowerCase()} with a computed template name is not allowed in templates; the partial must be known at load time`,
                FIXES.include, line(node));
        }
    }

    /** Records macro names, imports and constant bindings before checking, so order in the file does not matter. */
    private collectBindings(node: unknown): void {
        if (Array.isArray(node)) {
            node.forEach(child => this.collectBindings(child));
            return;
        }
        if (!isNode(node)) {
            return;
        }
        switch (node.typename) {
            case 'Macro':
                this.callables.add(String((node.name as AstNode).value));
                break;
            case 'Import':
                this.namespaces.add(String((node.target as AstNode).value));
                break;
            case 'FromImport':
                for (const imported of ((node.names as AstNode).children as AstNode[])) {
                    this.callables.add(String((imported.typename === 'Pair' ? imported.value as AstNode : imported).value));
                }
                break;
            case 'Set':
                for (const target of node.targets as AstNode[]) {
                    this.bind(target, node.value ? this.fold(node.value as AstNode) : undefined);
                }
                break;
            case 'For': {
                const arr = unwrap(node.arr as AstNode);
                const names = (node.name as AstNode).typename === 'Array' ? (node.name as AstNode).children as AstNode[] : [node.name as AstNode];
                if (arr.typename === 'Array') {
                    const items = (arr.children as AstNode[]).map(item => this.fold(item) ?? []).flat();
                    names.forEach(name => this.bind(name, items));
                } else if (arr.typename === 'Dict') {
                    const keys = (arr.children as AstNode[]).map(pair => this.fold(pair.key as AstNode) ?? [String((pair.key as AstNode).value)]).flat();
                    this.bind(names[0], keys);
                }
                break;
            }
        }
        for (const field of node.fields) {
            this.collectBindings(node[field]);
        }
    }

    private bind(target: AstNode, values: string[] | undefined): void {
        if (target.typename !== 'Symbol' || !values?.length) {
            return;
        }
        const name = String(target.value);
        const known = this.constants.get(name) ?? new Set<string>();
        values.forEach(value => known.add(value));
        this.constants.set(name, known);
    }

    /** The constant strings an expression can evaluate to, or undefined when data decides. */
    private fold(node: AstNode, depth = 0): string[] | undefined {
        node = unwrap(node);
        if (depth > 8) {
            return undefined;
        }
        switch (node.typename) {
            case 'Literal':
                return typeof node.value === 'string' || typeof node.value === 'number' ? [String(node.value)] : undefined;
            case 'Symbol': {
                const known = this.constants.get(String(node.value));
                return known ? [...known] : undefined;
            }
            case 'Concat':
            case 'Add': {
                const left = this.fold(node.left as AstNode, depth + 1);
                const right = this.fold(node.right as AstNode, depth + 1);
                return left && right ? left.flatMap(a => right.map(b => a + b)).slice(0, MAX_FOLDED) : undefined;
            }
            case 'InlineIf': {
                const body = this.fold(node.body as AstNode, depth + 1);
                const otherwise = node.else_ ? this.fold(node.else_ as AstNode, depth + 1) : [''];
                return body && otherwise ? [...body, ...otherwise] : undefined;
            }
            case 'Filter':
                return this.foldFilter(node, depth);
        }
        return undefined;
    }

    private foldFilter(node: AstNode, depth: number): string[] | undefined {
        const name = String((node.name as AstNode).value);
        const [subject, ...rest] = (node.args as AstNode).children as AstNode[];
        const args = rest.map(arg => this.fold(arg, depth + 1)?.[0]);
        if (name === 'join' && subject && unwrap(subject).typename === 'Array') {
            const parts = (unwrap(subject).children as AstNode[]).map(item => this.fold(item, depth + 1)?.[0]);
            return parts.every(part => part !== undefined) ? [parts.join(args[0] ?? '')] : undefined;
        }
        const apply = Object.hasOwn(FOLDABLE_FILTERS, name) ? FOLDABLE_FILTERS[name] : undefined;
        const values = apply && subject ? this.fold(subject, depth + 1) : undefined;
        return apply && values?.map(value => apply(value, args.map(arg => arg ?? '')));
    }
}

function isNode(value: unknown): value is AstNode {
    return !!value && typeof value === 'object' && typeof (value as AstNode).typename === 'string' && Array.isArray((value as AstNode).fields);
}

/** Parentheses parse to a Group of one expression. */
function unwrap(node: AstNode): AstNode {
    while (node?.typename === 'Group' && (node.children as AstNode[]).length === 1) {
        node = (node.children as AstNode[])[0];
    }
    return node;
}

function line(node: AstNode): number | undefined {
    return typeof node.lineno === 'number' ? node.lineno + 1 : undefined;
}
