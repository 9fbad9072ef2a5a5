import { PartialError } from './partial-error';
import { HostError, SandboxedTemplate, TemplateEnvironment } from './template-environment';
import { ExpressionEvaluator, RenderContext, Run, Scope } from './template-expressions';
import { RenderBudget } from './template-limits';
import { AstNode, isTemplateSyntaxError } from './template-nodes';
import { TemplateSandboxError } from './template-policy';
import { isPlainObject, Keywords, memberLookup, TemplateMacro, toText } from './template-values';

/** Text a render writes, its length checked as it grows. */
class Output {
    private value = '';

    constructor(private readonly budget: RenderBudget) { }

    write(text: string): void {
        if (text) {
            this.budget.text(this.value.length + text.length, 'the rendered text');
            // Appended as nunjucks' compiled code does: V8 joins the pieces once, when the text is read.
            this.value += text;
        }
    }

    text(): string {
        return this.value;
    }
}

/** The line and partial of the statement that failed; what JavaScript itself threw (a TypeError on odd data) becomes a refusal. */
function located(error: unknown, node: AstNode, template: SandboxedTemplate): unknown {
    if (error instanceof HostError || error instanceof PartialError) {
        return error;
    }
    if (error instanceof TemplateSandboxError) {
        return error.line !== undefined ? error : new TemplateSandboxError(error.reason, error.fix, node.lineno + 1, error.partial ?? template.partial);
    }
    if (isTemplateSyntaxError(error)) {
        // A syntax error of a partial loaded on the way: nunjucks' own error, with its path and line.
        return error;
    }
    const message = error instanceof Error ? error.message : String(error);
    return new TemplateSandboxError(`the template failed: ${message}`, 'check the values the template combines (types, sizes, nesting)', node.lineno + 1, template.partial);
}

/**
 * Renders a checked template by walking its parsed tree with nunjucks' semantics (frames, contexts,
 * includes, macros, blocks), counting every step against the render budget. Nothing is compiled.
 */
export class TemplateInterpreter extends ExpressionEvaluator {
    constructor(environment: TemplateEnvironment, budget: RenderBudget) {
        super(environment, budget);
    }

    renderRoot(template: SandboxedTemplate, context: RenderContext, scope: Scope): string {
        const run: Run = { template, context, nested: false, state: {} };
        const out = new Output(this.budget);
        this.execute(template.root, scope, run, out);
        const parent = run.state.parent;
        // With `{% extends %}` the child's own text is dropped: the parent renders, with the child's blocks.
        return parent ? this.budget.nested(`extends "${parent.partial}"`, () => this.renderRoot(parent, context, scope)) : out.text();
    }

    private execute(node: AstNode, scope: Scope, run: Run, out: Output): void {
        this.budget.step();
        try {
            this.statement(node, scope, run, out);
        } catch (error) {
            throw located(error, node, run.template);
        }
    }

    private statement(node: AstNode, scope: Scope, run: Run, out: Output): void {
        switch (node.typename) {
            case 'Root':
            case 'NodeList':
                for (const child of node.children as AstNode[]) {
                    this.execute(child, scope, run, out);
                }
                return;
            case 'Output':
                for (const child of node.children as AstNode[]) {
                    out.write(child.typename === 'TemplateData' ? child.value as string : toText(this.evaluate(child, scope, run), this.budget, true));
                }
                return;
            case 'If':
                if (this.evaluate(node.cond as AstNode, scope, run)) {
                    this.execute(node.body as AstNode, scope, run, out);
                } else if (node.else_) {
                    this.execute(node.else_ as AstNode, scope, run, out);
                }
                return;
            case 'For':
                return this.loop(node, scope, run, out);
            case 'Set':
                return this.set(node, scope, run);
            case 'Macro': {
                const name = String((node.name as AstNode).value);
                this.bind(name, this.makeMacro(node, scope, run, name, false), scope, run, true);
                return;
            }
            case 'Include':
                return this.include(node, scope, run, out);
            case 'Import':
            case 'FromImport':
                return this.import(node, scope, run);
            case 'Extends': {
                const parent = this.environment.getTemplate(String((node.template as AstNode).value));
                run.state.parent = parent;
                for (const [name, block] of parent.blocks) {
                    run.context.addBlock(name, parent, block);
                }
                return;
            }
            case 'Block':
                if (run.block || !run.state.parent) {
                    out.write(this.renderBlock(String((node.name as AstNode).value), 0, scope, run));
                }
                return;
            case 'Switch':
                return this.switch(node, scope, run, out);
        }
        throw new TemplateSandboxError(`the construct ${node.typename} cannot run as a statement`, 'use only nunjucks\' built-in tags', node.lineno + 1);
    }

    /** A macro or import binds in the loop or call body it sits in, else as a template variable (exported unless it starts with _). */
    private bind(name: string, value: unknown, scope: Scope, run: Run, exported: boolean): void {
        if (run.nested) {
            scope.vars.set(name, value);
            return;
        }
        if (exported && !name.startsWith('_')) {
            run.context.exported.push(name);
        }
        run.context.vars.set(name, value);
    }

    private set(node: AstNode, scope: Scope, run: Run): void {
        const value = node.value ? this.evaluate(node.value as AstNode, scope, run) : this.capture((node.body as AstNode).body as AstNode, scope, run);
        for (const target of node.targets as AstNode[]) {
            const name = target.value as string;
            scope.assign(name, value);
            if (scope.topLevel) {
                run.context.vars.set(name, value);
                if (!name.startsWith('_')) {
                    run.context.exported.push(name);
                }
            }
        }
    }

    private loop(node: AstNode, outer: Scope, outerRun: Run, out: Output): void {
        const scope = outer.push();
        const run: Run = outerRun.nested ? outerRun : { ...outerRun, nested: true };
        const target = node.name as AstNode;
        const names = target.typename === 'Array' ? (target.children as AstNode[]).map(child => child.value as string) : [target.value as string];
        const items = this.evaluate(node.arr as AstNode, scope, outerRun);
        let length = 0;
        if (items) {
            const loop: Record<string, unknown> = {};
            const each = (index: number, bind: () => void) => {
                this.budget.iteration();
                bind();
                // Bound at the first iteration, as nunjucks does: an empty loop's else still sees an outer loop.
                scope.vars.set('loop', loop);
                Object.assign(loop, {
                    index: index + 1, index0: index, revindex: length - index, revindex0: length - index - 1,
                    first: index === 0, last: index === length - 1, length
                });
                this.execute(node.body as AstNode, scope, run, out);
            };
            if (target.typename === 'Array' && !Array.isArray(items)) {
                // key, value over a dict (or a string's indices, as nunjucks' for…in does).
                const keys = isPlainObject(items) || typeof items === 'string' ? Object.keys(items) : [];
                length = keys.length;
                keys.forEach((key, index) => each(index, () => {
                    scope.vars.set(names[0], key);
                    scope.vars.set(names[1], memberLookup(items, key));
                }));
            } else {
                length = Array.isArray(items) || typeof items === 'string' ? items.length
                    : isPlainObject(items) && typeof items.length === 'number' ? items.length : 0;
                for (let index = 0; index < length; index++) {
                    each(index, () => {
                        const item = Array.isArray(items) ? items[index] : memberLookup(items, index);
                        if (target.typename === 'Array') {
                            names.forEach((name, position) => scope.vars.set(name, item === null || item === undefined ? undefined : memberLookup(item, position)));
                        } else {
                            scope.vars.set(names[0], item);
                        }
                    });
                }
            }
        }
        if (!length && node.else_) {
            this.execute(node.else_ as AstNode, scope, run, out);
        }
    }

    private switch(node: AstNode, scope: Scope, run: Run, out: Output): void {
        const value = this.evaluate(node.expr as AstNode, scope, run);
        let matched = false;
        for (const item of node.cases as AstNode[]) {
            matched ||= value === this.evaluate(item.cond as AstNode, scope, run);
            if (matched) {
                this.execute(item.body as AstNode, scope, run, out);
                // As the JavaScript switch nunjucks emits: an empty case falls through to the next.
                if ((item.body as AstNode).children && ((item.body as AstNode).children as AstNode[]).length) {
                    return;
                }
            }
        }
        if (node.default) {
            this.execute(node.default as AstNode, scope, run, out);
        }
    }

    private include(node: AstNode, scope: Scope, run: Run, out: Output): void {
        const name = String((node.template as AstNode).value);
        let template: SandboxedTemplate;
        try {
            template = this.environment.getTemplate(name);
        } catch (error) {
            if (node.ignoreMissing && error instanceof PartialError && error.missing) {
                return;
            }
            throw error;
        }
        out.write(this.budget.nested(`the include of "${name}"`, () => {
            const frame = scope.push(true);
            frame.topLevel = true;
            return this.renderRoot(template, new RenderContext(run.context.vars, this.environment, template), frame);
        }));
    }

    private import(node: AstNode, scope: Scope, run: Run): void {
        const name = String((node.template as AstNode).value);
        const template = this.environment.getTemplate(name);
        const exported = this.budget.nested(`the import of "${name}"`, () => {
            const frame = node.withContext ? scope.push() : new Scope();
            frame.topLevel = true;
            const context = new RenderContext(node.withContext ? run.context.vars : [], this.environment, template);
            this.renderRoot(template, context, frame);
            const namespace: Record<string, unknown> = Object.create(null);
            context.exported.forEach(key => { namespace[key] = context.vars.get(key); });
            return namespace;
        });
        if (node.typename === 'Import') {
            this.bind(String((node.target as AstNode).value), exported, scope, run, false);
            return;
        }
        for (const imported of (node.names as AstNode).children as AstNode[]) {
            const [key, alias] = imported.typename === 'Pair' ? [imported.key as AstNode, imported.value as AstNode] : [imported, imported];
            const wanted = String(key.value);
            if (!Object.hasOwn(exported, wanted)) {
                throw new TemplateSandboxError(`cannot import "${wanted}" from "${name}": it defines no such macro or variable`, 'fix the name or define it there');
            }
            this.bind(String(alias.value), exported[wanted], scope, run, false);
        }
    }

    private renderBlock(name: string, index: number, scope: Scope, run: Run): string {
        const chain = run.context.blocks.get(name);
        const entry = chain?.[index];
        if (!entry) {
            throw new TemplateSandboxError(index === 0 ? `unknown block "${name}"` : `no parent block "${name}" for super()`,
                'define the block in the template it extends');
        }
        const out = new Output(this.budget);
        this.execute(entry.node.body as AstNode, scope.push(true), { template: entry.template, context: run.context, nested: false, state: {}, block: { name, index } }, out);
        return out.text();
    }

    protected callSuper(scope: Scope, run: Run): string {
        const block = run.block as { name: string; index: number };
        return this.renderBlock(block.name, block.index + 1, scope, run);
    }

    protected capture(body: AstNode, scope: Scope, run: Run): string {
        const out = new Output(this.budget);
        this.execute(body, scope, run, out);
        return out.text();
    }

    /** nunjucks' makeMacro: positional arguments, keyword arguments, defaults evaluated at the call, `caller` for call blocks. */
    protected makeMacro(node: AstNode, scope: Scope, run: Run, name: string, keepScope: boolean): TemplateMacro {
        const params = ((node.args as AstNode)?.children ?? []) as AstNode[];
        const positional = params.filter(param => param.typename === 'Symbol').map(param => param.value as string);
        const defaults = (params.find(param => param.typename === 'KeywordArgs')?.children ?? []) as AstNode[];
        const keywordNames = defaults.map(pair => (pair.key as AstNode).value as string);
        const bodyRun: Run = { ...run, nested: keepScope };
        return new TemplateMacro(name, (given, keywords) => this.budget.nested(`the macro "${name}"`, () => {
            const kwargs: Keywords = Object.assign(Object.create(null) as Keywords, keywords);
            let args = given;
            if (given.length > positional.length) {
                args = given.slice(0, positional.length);
                given.slice(positional.length).forEach((value, index) => {
                    if (index < keywordNames.length) {
                        kwargs[keywordNames[index]] = value;
                    }
                });
            } else if (given.length < positional.length) {
                args = [...given];
                for (let index = given.length; index < positional.length; index++) {
                    args.push(kwargs[positional[index]]);
                    delete kwargs[positional[index]];
                }
            }
            const frame = keepScope ? scope.push(true) : new Scope();
            if (Object.hasOwn(kwargs, 'caller')) {
                frame.vars.set('caller', kwargs.caller);
            }
            positional.forEach((param, index) => frame.vars.set(param, args[index]));
            defaults.forEach((pair, index) => {
                const key = keywordNames[index];
                frame.vars.set(key, Object.hasOwn(kwargs, key) ? kwargs[key] : this.evaluate(pair.value as AstNode, frame, bodyRun));
            });
            const out = new Output(this.budget);
            this.execute(node.body as AstNode, frame, bodyRun, out);
            return out.text();
        }));
    }
}

/** Renders a checked template with `variables` (ctx, model, agent, tools) within the environment's limits. */
export function renderTemplate(template: SandboxedTemplate, variables: object): string {
    const environment = template.environment;
    const interpreter = new TemplateInterpreter(environment, new RenderBudget(environment.limits));
    const scope = new Scope();
    scope.topLevel = true;
    try {
        return interpreter.renderRoot(template, new RenderContext(Object.entries(variables ?? {}), environment, template), scope);
    } catch (error) {
        throw error instanceof HostError ? error.original : error;
    }
}
