import { checkTemplateAst } from './template-ast-check';
import { builtinFilters, builtinTests, Filter, Test } from './template-filters';
import { RenderBudget, TEMPLATE_LIMITS, TemplateLimits } from './template-limits';
import { AstNode, parseTemplate, withPartial } from './template-nodes';
import { TemplateSandboxError } from './template-policy';
import { Cycler, primitive, TemplateGlobal } from './template-values';

export { TemplateGlobal } from './template-values';

/** A partial's text and where it came from. */
export interface TemplateSource {
    src: string;
    path: string;
}

/** Finds partials by include name; throws PartialError (partial-error.ts) when it cannot. */
export interface TemplateLoader {
    getSource(name: string): TemplateSource;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An error thrown by host code a template called (a registered global or filter): rethrown as it was, not as a sandbox refusal. */
export class HostError extends Error {
    constructor(readonly original: unknown) {
        super(original instanceof Error ? original.message : String(original));
        this.name = 'HostError';
    }
}

function host<T>(work: () => T): T {
    try {
        return work();
    } catch (error) {
        throw error instanceof HostError ? error : new HostError(error);
    }
}

/** A template parsed and checked at load; rendering interprets its tree, nothing of it is ever compiled to JavaScript. */
export class SandboxedTemplate {
    /** Every `{% block %}` of the template, by name (what a child template may override). */
    readonly blocks = new Map<string, AstNode>();

    constructor(readonly root: AstNode, readonly environment: TemplateEnvironment, readonly path: string, readonly partial?: string) {
        collectBlocks(root, this.blocks);
    }
}

function collectBlocks(node: unknown, into: Map<string, AstNode>): void {
    if (Array.isArray(node)) {
        node.forEach(child => collectBlocks(child, into));
        return;
    }
    const typed = node as AstNode | null;
    if (!typed || typeof typed.typename !== 'string') {
        return;
    }
    if (typed.typename === 'Block') {
        into.set(String((typed.name as AstNode).value), typed);
    }
    for (const field of typed.fields) {
        collectBlocks(typed[field], into);
    }
}

/** Template names a template refers to (include, import, from-import, extends), with whether a missing one is fine. */
function references(node: unknown, into: Array<{ name: string; optional: boolean }>): void {
    if (Array.isArray(node)) {
        node.forEach(child => references(child, into));
        return;
    }
    const typed = node as AstNode | null;
    if (!typed || typeof typed.typename !== 'string') {
        return;
    }
    if (['Include', 'Import', 'FromImport', 'Extends'].includes(typed.typename)) {
        into.push({ name: String((typed.template as AstNode).value), optional: typed.typename === 'Include' && !!typed.ignoreMissing });
    }
    for (const field of typed.fields) {
        references(typed[field], into);
    }
}

/**
 * Where agent templates are loaded and rendered: the registered globals, filters and tests (the only
 * names a template can call), the partial loader, a cache of checked partials, and the render limits.
 */
export class TemplateEnvironment {
    readonly globals = new Map<string, TemplateGlobal>();
    readonly tests: Map<string, Test> = builtinTests();
    readonly filters: Map<string, Filter> = builtinFilters(this.tests);
    private readonly cache = new Map<string, SandboxedTemplate>();

    constructor(private readonly loader?: TemplateLoader, readonly limits: TemplateLimits = { ...TEMPLATE_LIMITS }) {
        this.globals.set('range', new TemplateGlobal('range', range));
        this.globals.set('cycler', new TemplateGlobal('cycler', (_budget, items) => new Cycler(items)));
        // joiner() returns a host function, which templates cannot call (as before): kept so old templates still load.
        this.globals.set('joiner', new TemplateGlobal('joiner', (_budget, [separator]) => {
            let first = true;
            return () => (first ? ((first = false), '') : String(separator ?? ','));
        }));
    }

    /** Registers a function templates may call by `name` (host code: trusted). */
    addGlobal(name: string, fn: (...args: never[]) => unknown): void {
        if (!NAME.test(name)) {
            throw new Error(`a template global needs a plain name, not ${JSON.stringify(name)}`);
        }
        this.globals.set(name, new TemplateGlobal(name, (_budget, args) => host(() => (fn as (...values: unknown[]) => unknown)(...args))));
    }

    /** Registers a filter (host code: trusted); it receives template data. */
    addFilter(name: string, fn: (value: unknown, ...args: unknown[]) => unknown): void {
        if (!NAME.test(name)) {
            throw new Error(`a template filter needs a plain name, not ${JSON.stringify(name)}`);
        }
        this.filters.set(name, (_budget, value, ...args) => host(() => fn(value, ...args)));
    }

    /**
     * Parses and checks template text (node types, names, data-only rules), then loads every partial it
     * includes, imports or extends, so a hostile partial is refused here, before anything renders.
     */
    compile(source: string, path: string, partial?: string): SandboxedTemplate {
        const root = parseTemplate(source, path, { filters: new Set(this.filters.keys()), tests: new Set(this.tests.keys()) }, partial);
        try {
            checkTemplateAst(root, { globals: [...this.globals.keys(), 'super'], filters: [...this.filters.keys()], tests: [...this.tests.keys()] });
        } catch (error) {
            // The node check above admits only known shapes; anything else the data check trips on is refused, not thrown raw.
            throw withPartial(error instanceof TemplateSandboxError ? error
                : new TemplateSandboxError(`the template could not be checked: ${error instanceof Error ? error.message : String(error)}`, 'fix the template syntax'), partial);
        }
        return new SandboxedTemplate(root, this, path, partial);
    }

    /** A partial by include name, checked once and cached, with everything it refers to. */
    getTemplate(name: string): SandboxedTemplate {
        const cached = this.cache.get(name);
        if (cached) {
            return cached;
        }
        if (!this.loader) {
            throw new TemplateSandboxError(`no partial named "${name}": this environment has no partials`, 'render it with createTemplateEnvironment');
        }
        const source = this.loader.getSource(name);
        const template = this.compile(source.src, source.path, name);
        // Cached before its references load, so partials that include each other load once (rendering bounds the recursion).
        this.cache.set(name, template);
        try {
            this.loadReferences(template);
        } catch (error) {
            this.cache.delete(name);
            throw error;
        }
        return template;
    }

    /** Loads what a template includes, imports or extends; a missing `ignore missing` include is fine. */
    loadReferences(template: SandboxedTemplate): void {
        const found: Array<{ name: string; optional: boolean }> = [];
        references(template.root, found);
        for (const { name, optional } of found) {
            try {
                this.getTemplate(name);
            } catch (error) {
                if (!(optional && (error as { missing?: boolean })?.missing === true)) {
                    throw error;
                }
            }
        }
    }
}

/** nunjucks' range(), its length checked before the list is built. */
function range(budget: RenderBudget, args: unknown[]): number[] {
    const numbers = args.map(arg => Number(primitive(arg, budget)));
    let [start, stop, step] = numbers;
    if (args[1] === undefined) {
        stop = start;
        start = 0;
        step = 1;
    } else if (!step) {
        step = 1;
    }
    const count = step > 0 ? Math.ceil((stop - start) / step) : Math.ceil((start - stop) / -step);
    if (!(count > 0)) {
        return [];
    }
    budget.list(count, `range(${numbers.join(', ')})`);
    // Added up step by step as nunjucks does, so fractional steps give the same numbers.
    const result: number[] = [];
    for (let value = start; step > 0 ? value < stop : value > stop; value += step) {
        result.push(value);
    }
    return result;
}
