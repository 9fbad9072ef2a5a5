import { SandboxedTemplate, TemplateEnvironment } from './template-environment';

export { TemplateSandboxError } from './template-policy';
export { SandboxedTemplate, TemplateEnvironment } from './template-environment';

/**
 * Loads agent template text in the sandbox: nunjucks' parser reads it, every node, name and literal is
 * checked against what the interpreter runs, the data-only rules (no constructors or prototypes, calls of
 * registered functions, macros and safe data methods only, literal include names) are checked, and every
 * partial it refers to is loaded and checked the same way. Nothing is compiled to JavaScript: renderSync
 * interprets the tree within the environment's limits. `partial` names the partial in errors.
 */
export function compileSandboxedTemplate(source: string, environment: TemplateEnvironment, path: string, partial?: string): SandboxedTemplate {
    const template = environment.compile(source, path, partial);
    environment.loadReferences(template);
    return template;
}
