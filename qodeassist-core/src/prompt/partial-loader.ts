import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import * as nunjucks from 'nunjucks';
import { SandboxedTemplateLoader, withoutPrototypes } from './template-sandbox';

/** Raised for an include that leaves its roots or names no existing partial; carries what to do. */
export class PartialError extends Error {
    constructor(message: string, readonly fix: string) {
        super(message);
        this.name = 'PartialError';
    }
}

/**
 * Resolves `{% include %}` names only inside the partial roots, in order. Absolute
 * names, `..` segments, backslashes, NUL bytes and symlinks that lead out of a root
 * are refused: a profile can never read a file it was not meant to.
 */
export class SandboxedPartialLoader extends nunjucks.Loader {
    private readonly roots: string[];

    constructor(roots: readonly string[]) {
        super();
        this.roots = roots.filter(root => existsSync(root)).map(root => realpathSync(root));
    }

    getSource(name: string): nunjucks.LoaderSource {
        if (!name || isAbsolute(name) || name.includes('\\') || name.includes('\0') || name.split('/').some(part => part === '..')) {
            throw new PartialError(`the partial name "${name.replace(/\0/g, '\\0')}" leaves the partial roots`,
                'name partials relative to agents/partials, without "..", a leading "/" or backslashes');
        }
        for (const root of this.roots) {
            const candidate = join(root, name);
            if (!existsSync(candidate)) {
                continue;
            }
            const real = realpathSync(candidate);
            const inside = relative(root, real);
            if (inside.startsWith('..') || isAbsolute(inside) || inside.split(sep)[0] === '..') {
                throw new PartialError(`the partial "${name}" is a link that leads outside its root`, 'replace the link with the file itself');
            }
            return { src: readFileSync(real, 'utf8'), path: real, noCache: false };
        }
        throw new PartialError(`no partial named "${name}"`, `create it in a partials folder or fix the include; looked in: ${this.roots.join(', ') || '(no partial roots exist)'}`);
    }
}

/**
 * The nunjucks environment every agent template renders in: no autoescape (the output is JSON), a `json`
 * filter, partials checked and guarded by the template sandbox. Compile top-level templates in it with
 * compileSandboxedTemplate, never `new nunjucks.Template`.
 */
export function createTemplateEnvironment(partialRoots: readonly string[]): nunjucks.Environment {
    const loader = new SandboxedTemplateLoader(new SandboxedPartialLoader(partialRoots), (): nunjucks.Environment => environment);
    const environment: nunjucks.Environment = new nunjucks.Environment(loader, {
        autoescape: false, throwOnUndefined: false, trimBlocks: true, lstripBlocks: true
    });
    environment.addFilter('json', (value: unknown) => JSON.stringify(value ?? null));
    return withoutPrototypes(environment);
}
