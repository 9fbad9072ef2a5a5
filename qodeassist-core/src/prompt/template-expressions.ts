import { add } from './template-filters';
import { SandboxedTemplate, TemplateEnvironment, TemplateGlobal } from './template-environment';
import { RenderBudget } from './template-limits';
import { AstNode } from './template-nodes';
import { callRefused, TemplateSandboxError } from './template-policy';
import { BoundMethod, callMethod, isPlainObject, Keywords, memberLookup, primitive, RefusedMethod, TemplateMacro, toText } from './template-values';

/** nunjucks' Frame: variables of a scope, looked up through parents; writes stop at an isolating scope. */
export class Scope {
    readonly vars = new Map<string, unknown>();
    /** The root scope of a render: its `set`s also become template variables (and exports). */
    topLevel = false;

    constructor(readonly parent?: Scope, private readonly isolateWrites = false) { }

    lookup(name: string): unknown {
        const value = this.vars.get(name);
        return value !== undefined ? value : this.parent?.lookup(name);
    }

    /** `{% set %}` writes where the name already lives, unless this scope isolates writes (nunjucks checks only the first). */
    assign(name: string, value: unknown): void {
        const owner = this.vars.get(name) !== undefined ? this : this.isolateWrites ? undefined : this.parent?.owner(name);
        (owner ?? this).vars.set(name, value);
    }

    private owner(name: string): Scope | undefined {
        return this.vars.get(name) !== undefined ? this : this.parent?.owner(name);
    }

    push(isolateWrites = false): Scope {
        return new Scope(this, isolateWrites);
    }
}

/** nunjucks' Context: the variables of one template render (a copy for each include), its exports and blocks. */
export class RenderContext {
    readonly vars: Map<string, unknown>;
    readonly exported: string[] = [];
    readonly blocks = new Map<string, Array<{ template: SandboxedTemplate; node: AstNode }>>();

    constructor(variables: Iterable<[string, unknown]>, readonly environment: TemplateEnvironment, template: SandboxedTemplate) {
        this.vars = new Map(variables);
        for (const [name, node] of template.blocks) {
            this.addBlock(name, template, node);
        }
    }

    lookup(name: string): unknown {
        return this.vars.has(name) ? this.vars.get(name) : this.environment.globals.get(name);
    }

    addBlock(name: string, template: SandboxedTemplate, node: AstNode): void {
        const chain = this.blocks.get(name) ?? [];
        chain.push({ template, node });
        this.blocks.set(name, chain);
    }
}

/** Where a render is: which template's nodes run, in which context, and whether inside a loop or call body. */
export interface Run {
    template: SandboxedTemplate;
    context: RenderContext;
    /** Inside a for loop or call block: macros and imports bind in the scope, not the context (as nunjucks compiles them). */
    nested: boolean;
    /** Shared by one template render: the parent an `{% extends %}` named. */
    state: { parent?: SandboxedTemplate };
    /** Inside a block: which one, and which override in its chain, for super(). */
    block?: { name: string; index: number };
}

const line = (node: AstNode) => node.lineno + 1;

/** How the callee of a refused call is named in the error. */
function calleeName(node: AstNode): string {
    if (node.typename === 'Symbol') {
        return String(node.value);
    }
    const member = node.typename === 'LookupVal' ? node.val as AstNode : undefined;
    return member?.typename === 'Literal' ? `.${String(member.value)}` : 'the result of an expression';
}

/** Evaluates expression nodes; the statement interpreter supplies macros, call blocks, captures and super(). */
export abstract class ExpressionEvaluator {
    constructor(protected readonly environment: TemplateEnvironment, protected readonly budget: RenderBudget) { }

    protected abstract makeMacro(node: AstNode, scope: Scope, run: Run, name: string, keepScope: boolean): TemplateMacro;
    protected abstract capture(body: AstNode, scope: Scope, run: Run): string;
    protected abstract callSuper(scope: Scope, run: Run): string;

    evaluate(node: AstNode, scope: Scope, run: Run): unknown {
        this.budget.step();
        switch (node.typename) {
            case 'Literal':
                return node.value;
            case 'Symbol': {
                const name = node.value as string;
                const value = scope.lookup(name);
                return value !== undefined ? value : run.context.lookup(name);
            }
            case 'Group': {
                let last: unknown;
                for (const child of node.children as AstNode[]) {
                    last = this.evaluate(child, scope, run);
                }
                return last;
            }
            case 'Array':
                return (node.children as AstNode[]).map(child => this.evaluate(child, scope, run));
            case 'Dict': {
                // Without a prototype: no key of a dict literal reaches Object.prototype.
                const dict: Record<string, unknown> = Object.create(null);
                for (const pair of node.children as AstNode[]) {
                    dict[String((pair.key as AstNode).value)] = this.evaluate(pair.value as AstNode, scope, run);
                }
                return dict;
            }
            case 'LookupVal':
                return memberLookup(this.evaluate(node.target as AstNode, scope, run), this.evaluate(node.val as AstNode, scope, run));
            case 'InlineIf':
                return this.evaluate(node.cond as AstNode, scope, run) ? this.evaluate(node.body as AstNode, scope, run)
                    : node.else_ ? this.evaluate(node.else_ as AstNode, scope, run) : '';
            case 'Or':
                return this.evaluate(node.left as AstNode, scope, run) || this.evaluate(node.right as AstNode, scope, run);
            case 'And':
                return this.evaluate(node.left as AstNode, scope, run) && this.evaluate(node.right as AstNode, scope, run);
            case 'Not':
                return !this.evaluate(node.target as AstNode, scope, run);
            case 'In':
                return this.contains(this.evaluate(node.right as AstNode, scope, run), this.evaluate(node.left as AstNode, scope, run));
            case 'Is':
                return this.test(node, scope, run);
            case 'Compare':
                return this.compare(node, scope, run);
            case 'FunCall':
                return this.call(node, scope, run);
            case 'Filter':
                return this.filter(node, scope, run);
            case 'Caller':
                return this.makeMacro(node, scope, run, 'caller', true);
            case 'Capture':
                return this.capture(node.body as AstNode, scope, run);
            case 'Neg':
                return -(primitive(this.evaluate(node.target as AstNode, scope, run), this.budget) as number);
            case 'Pos':
                return +(primitive(this.evaluate(node.target as AstNode, scope, run), this.budget) as number);
            case 'Concat': {
                const left = toText(this.evaluate(node.left as AstNode, scope, run), this.budget);
                const right = toText(this.evaluate(node.right as AstNode, scope, run), this.budget);
                this.budget.text(left.length + right.length, 'the joined text (~)');
                this.budget.work(left.length + right.length);
                return left + right;
            }
            case 'Add':
                return add(this.evaluate(node.left as AstNode, scope, run), this.evaluate(node.right as AstNode, scope, run), this.budget);
            case 'Sub': case 'Mul': case 'Div': case 'FloorDiv': case 'Mod': case 'Pow':
                return this.arithmetic(node, scope, run);
        }
        throw new TemplateSandboxError(`the construct ${node.typename} cannot be evaluated here`, 'use only nunjucks\' built-in expressions', line(node));
    }

    private arithmetic(node: AstNode, scope: Scope, run: Run): number {
        const a = primitive(this.evaluate(node.left as AstNode, scope, run), this.budget) as number;
        const b = primitive(this.evaluate(node.right as AstNode, scope, run), this.budget) as number;
        switch (node.typename) {
            case 'Sub': return a - b;
            case 'Mul': return a * b;
            case 'Div': return a / b;
            case 'FloorDiv': return Math.floor(a / b);
            case 'Mod': return a % b;
            default: return Math.pow(a, b);
        }
    }

    /** nunjucks emits a chain of comparisons as one JavaScript expression: `a < b < c` is `(a < b) < c`. */
    private compare(node: AstNode, scope: Scope, run: Run): unknown {
        let left = this.evaluate(node.expr as AstNode, scope, run);
        for (const operand of node.ops as AstNode[]) {
            const right = this.evaluate(operand.expr as AstNode, scope, run);
            left = this.compareTwo(String(operand.type), left, right);
        }
        return left;
    }

    private compareTwo(operator: string, a: unknown, b: unknown): boolean {
        if (operator === '===') {
            return a === b;
        }
        if (operator === '!==') {
            return a !== b;
        }
        const bothObjects = a !== null && b !== null && typeof a === 'object' && typeof b === 'object';
        const x = bothObjects ? a : primitive(a, this.budget) as number;
        const y = bothObjects ? b : primitive(b, this.budget) as number;
        switch (operator) {
            case '==': return x == y; // eslint-disable-line eqeqeq -- nunjucks' == is JavaScript's
            case '!=': return x != y; // eslint-disable-line eqeqeq
            case '<': return primitive(x, this.budget) as number < (primitive(y, this.budget) as number);
            case '>': return primitive(x, this.budget) as number > (primitive(y, this.budget) as number);
            case '<=': return primitive(x, this.budget) as number <= (primitive(y, this.budget) as number);
            default: return primitive(x, this.budget) as number >= (primitive(y, this.budget) as number);
        }
    }

    /** nunjucks' `in`: an item of a list, text inside text, or an own key of a dict. */
    private contains(container: unknown, item: unknown): boolean {
        if (Array.isArray(container)) {
            return container.indexOf(item) !== -1;
        }
        if (typeof container === 'string') {
            return container.indexOf(toText(item, this.budget)) !== -1;
        }
        if (isPlainObject(container)) {
            return Object.hasOwn(container, toText(item, this.budget));
        }
        throw new TemplateSandboxError('"in" needs a list, text or a dict on its right', 'write x in list, x in "text" or key in dict');
    }

    private test(node: AstNode, scope: Scope, run: Run): boolean {
        const right = node.right as AstNode;
        const name = right.typename === 'FunCall' ? String((right.name as AstNode).value) : right.typename === 'Literal' ? 'none' : String(right.value);
        const test = this.environment.tests.get(name);
        if (!test) {
            throw new TemplateSandboxError(`the test "${name}" is not a registered test`, 'use one of nunjucks\' tests, e.g. is defined', line(right));
        }
        const value = this.evaluate(node.left as AstNode, scope, run);
        const { args } = right.typename === 'FunCall' ? this.argumentsOf(right.args as AstNode, scope, run) : { args: [] };
        return test(this.budget, value, ...args) === true;
    }

    argumentsOf(list: AstNode | undefined, scope: Scope, run: Run): { args: unknown[]; keywords?: Keywords } {
        const args: unknown[] = [];
        let keywords: Keywords | undefined;
        for (const child of (list?.children ?? []) as AstNode[]) {
            if (child.typename === 'KeywordArgs') {
                keywords = Object.create(null) as Keywords;
                for (const pair of child.children as AstNode[]) {
                    keywords[String((pair.key as AstNode).value)] = this.evaluate(pair.value as AstNode, scope, run);
                }
            } else {
                args.push(this.evaluate(child, scope, run));
            }
        }
        return keywords ? { args, keywords } : { args };
    }

    private filter(node: AstNode, scope: Scope, run: Run): unknown {
        const name = String((node.name as AstNode).value);
        const filter = this.environment.filters.get(name);
        if (!filter) {
            throw new TemplateSandboxError(`the filter "${name}" is not a registered filter`, 'use one of nunjucks\' filters or json, e.g. | dump', line(node));
        }
        const { args, keywords } = this.argumentsOf(node.args as AstNode, scope, run);
        if (keywords) {
            throw new TemplateSandboxError(`the filter "${name}" takes its arguments in order, not by name`, `write | ${name}(a, b)`, line(node));
        }
        const [value, ...rest] = args;
        // Before and after: a filter over a long text costs its length, read and written.
        this.budget.work(typeof value === 'string' ? value.length : 0);
        const result = filter(this.budget, value, ...rest);
        this.budget.work(typeof result === 'string' ? result.length : 0);
        return result;
    }

    /** Calls only what templates may call: macros, call blocks, registered globals and SAFE_METHODS of data. */
    private call(node: AstNode, scope: Scope, run: Run): unknown {
        const callee = node.name as AstNode;
        if (callee.typename === 'Symbol' && callee.value === 'super' && run.block && scope.lookup('super') === undefined) {
            return this.callSuper(scope, run);
        }
        const fn = this.evaluate(callee, scope, run);
        const { args, keywords } = this.argumentsOf(node.args as AstNode, scope, run);
        if (fn instanceof TemplateMacro) {
            return fn.invoke(args, keywords);
        }
        if (fn instanceof TemplateGlobal && this.environment.globals.get(fn.name) === fn) {
            return fn.invoke(this.budget, keywords ? [...args, { ...keywords }] : args);
        }
        if (fn instanceof BoundMethod) {
            if (keywords) {
                throw new TemplateSandboxError(`".${fn.name}" takes its arguments in order, not by name`, `write .${fn.name}(a, b)`, line(node));
            }
            return callMethod(fn, args, this.budget);
        }
        throw callRefused(fn instanceof RefusedMethod ? `".${fn.name}"` : `"${calleeName(callee)}"`, line(node));
    }
}
