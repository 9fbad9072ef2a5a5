import * as nunjucks from 'nunjucks';
import { AstNode, checkTemplateAst } from './template-ast-check';
import { TemplateSandboxError } from './template-policy';
import { guardRenderFunction, refused, RenderFunction } from './template-runtime-guard';

export { TemplateSandboxError } from './template-policy';

interface NunjucksInternals {
    parser: { parse(src: string, extensions: unknown, opts: unknown): AstNode };
}

interface EnvironmentInternals {
    globals: Record<string, unknown>;
    filters: Record<string, unknown>;
    tests: Record<string, unknown>;
    extensionsList: unknown[];
    opts: unknown;
}

interface CompiledTemplate {
    rootRenderFunc: RenderFunction;
    blocks: Record<string, RenderFunction>;
}

/**
 * Compiles agent template text in the sandbox: the parsed template is checked before it can run
 * (member access to constructors and prototypes, calls of anything but registered functions, macros
 * and safe data methods, computed include names are refused), and the compiled code runs with a
 * guarded runtime that refuses the same at run time. `partial` names the partial for error messages.
 */
export function compileSandboxedTemplate(source: string, environment: nunjucks.Environment, path: string, partial?: string): nunjucks.Template {
    const env = environment as unknown as EnvironmentInternals;
    let ast: AstNode | undefined;
    try {
        ast = (nunjucks as unknown as NunjucksInternals).parser.parse(source, env.extensionsList, env.opts);
    } catch {
        // A syntax error: nunjucks' own compile below reports it with the template's path and line, as before.
    }
    if (ast) {
        try {
            checkTemplateAst(ast, { globals: Object.keys(env.globals), filters: Object.keys(env.filters), tests: Object.keys(env.tests) });
        } catch (error) {
            throw error instanceof TemplateSandboxError ? refused(new TemplateSandboxError(error.reason, error.fix, error.line, partial)) : error;
        }
    }
    // Eager compilation only turns the checked text into a function; nothing of the template runs here.
    const template = new nunjucks.Template(source, environment, path, true);
    const compiled = template as unknown as CompiledTemplate;
    compiled.rootRenderFunc = guardRenderFunction(compiled.rootRenderFunc);
    for (const name of Object.keys(compiled.blocks)) {
        compiled.blocks[name] = guardRenderFunction(compiled.blocks[name]);
    }
    return template;
}

/**
 * The environment's name tables without a prototype: nunjucks looks filters, tests and globals up
 * by name at run time, and in a plain object `valueOf` or `constructor` would be found there.
 */
export function withoutPrototypes(environment: nunjucks.Environment): nunjucks.Environment {
    const env = environment as unknown as EnvironmentInternals;
    for (const table of [env.globals, env.filters, env.tests]) {
        Object.setPrototypeOf(table, null);
    }
    return environment;
}

/** The functions of a sandboxed template in the form nunjucks accepts as precompiled `src` ({ type: 'code' }). */
function precompiled(template: nunjucks.Template): { type: 'code'; obj: Record<string, RenderFunction> } {
    const compiled = template as unknown as CompiledTemplate;
    const obj: Record<string, RenderFunction> = { root: compiled.rootRenderFunc };
    for (const [name, block] of Object.entries(compiled.blocks)) {
        obj[`b_${name}`] = block;
    }
    return { type: 'code', obj };
}

/**
 * Hands nunjucks every included, imported or extended template already checked and guarded,
 * so a hostile partial is refused when it is loaded, before the including template runs it.
 */
export class SandboxedTemplateLoader extends nunjucks.Loader {
    constructor(private readonly sources: nunjucks.ILoader, private readonly environment: () => nunjucks.Environment) {
        super();
    }

    getSource(name: string): nunjucks.LoaderSource {
        const source = this.sources.getSource(name);
        const template = compileSandboxedTemplate(source.src, this.environment(), source.path, name);
        return { ...source, src: precompiled(template) as unknown as string };
    }
}
