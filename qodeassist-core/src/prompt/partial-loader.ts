import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { PartialError } from './partial-error';
import { TemplateEnvironment, TemplateLoader, TemplateSource } from './template-environment';
import { TEMPLATE_LIMITS, TemplateLimits } from './template-limits';

export { PartialError } from './partial-error';

/** The largest partial file read; a template is a few KiB, so anything bigger is a mistake or not a template. */
export const MAX_PARTIAL_BYTES = 256 * 1024;

/** An include name: plain relative path segments, none of them `.` or `..`. */
const PARTIAL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*(\/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$/;

/** A partials folder and the configuration layer folder it must lie in (`<layer>/partials`). */
export interface PartialRoot {
    root: string;
    layerDir: string;
}

/** A partials folder that is not used: it resolves outside its layer's folder (a link to /proc, /dev, home, …). */
export interface RefusedPartialRoot {
    root: string;
    reason: string;
    fix: string;
}

function inside(parent: string, child: string): boolean {
    const path = relative(parent, child);
    return path === '' || (!path.startsWith(`..${sep}`) && path !== '..' && !isAbsolute(path));
}

/**
 * Resolves `{% include %}` names only to regular files inside the partial roots, in order. Each root
 * must itself resolve (links followed) inside its layer's real folder, or it is refused and not used;
 * names are plain relative paths; the file must be a regular file (no FIFO, device or link out of the
 * root) no bigger than MAX_PARTIAL_BYTES. A profile can never read a file it was not meant to.
 */
export class SandboxedPartialLoader implements TemplateLoader {
    private readonly roots: string[] = [];
    readonly refused: RefusedPartialRoot[] = [];

    constructor(roots: ReadonlyArray<string | PartialRoot>) {
        for (const entry of roots) {
            const { root, layerDir } = typeof entry === 'string' ? { root: entry, layerDir: dirname(entry) } : entry;
            if (!existsSync(root)) {
                continue;
            }
            const real = realpathSync(root);
            const layer = existsSync(layerDir) ? realpathSync(layerDir) : undefined;
            if (!layer || !inside(layer, real) || !lstatSync(real).isDirectory()) {
                this.refused.push({
                    root, reason: `the partials folder ${root} resolves to ${real}, outside its configuration folder ${layer ?? layerDir}; it is not used`,
                    fix: `make ${root} a real folder inside ${layerDir}, not a link elsewhere`
                });
                continue;
            }
            this.roots.push(real);
        }
    }

    getSource(name: string): TemplateSource {
        if (!PARTIAL_NAME.test(name)) {
            throw new PartialError(`the partial name ${JSON.stringify(name)} leaves the partial roots or is not a plain name`,
                'name partials relative to agents/partials with letters, digits, _, -, . and /, without "..", a leading "/" or backslashes');
        }
        for (const root of this.roots) {
            const candidate = join(root, name);
            if (!existsSync(candidate)) {
                continue;
            }
            const real = realpathSync(candidate);
            if (!inside(root, real)) {
                throw new PartialError(`the partial "${name}" is a link that leads outside its root`, 'replace the link with the file itself');
            }
            return { src: readPartial(real, name), path: real };
        }
        throw new PartialError(`no partial named "${name}"`, `create it in a partials folder or fix the include; looked in: ${this.roots.join(', ') || '(no partial roots exist)'}`, true);
    }
}

/** Reads a regular file of at most MAX_PARTIAL_BYTES without following a link or blocking on a FIFO, checked again on the open file. */
function readPartial(path: string, name: string): string {
    if (!lstatSync(path).isFile()) {
        throw notRegular(name);
    }
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
        const stat = fstatSync(fd);
        if (!stat.isFile()) {
            throw notRegular(name);
        }
        if (stat.size > MAX_PARTIAL_BYTES) {
            throw new PartialError(`the partial "${name}" is ${stat.size} bytes, over MAX_PARTIAL_BYTES (${MAX_PARTIAL_BYTES})`,
                'keep partials small: split it, or move data out of the template');
        }
        return readFileSync(fd, 'utf8');
    } finally {
        closeSync(fd);
    }
}

function notRegular(name: string): PartialError {
    return new PartialError(`the partial "${name}" is not a regular file (a FIFO, device or folder)`, 'make the partial a plain text file');
}

/** The environment every agent template renders in, with its partial loader's refused roots (for the configuration view). */
export type AgentTemplateEnvironment = TemplateEnvironment & { readonly refusedRoots: readonly RefusedPartialRoot[] };

/**
 * The environment every agent template renders in: templates interpreted (never compiled), no
 * autoescape (the output is JSON), a `json` filter, partials from `partialRoots` checked at load.
 * Compile top-level templates in it with compileSandboxedTemplate. `limits` bound each render (TEMPLATE_LIMITS).
 */
export function createTemplateEnvironment(partialRoots: ReadonlyArray<string | PartialRoot>, limits: TemplateLimits = { ...TEMPLATE_LIMITS }): AgentTemplateEnvironment {
    const loader = new SandboxedPartialLoader(partialRoots);
    return Object.assign(new TemplateEnvironment(loader, limits), { refusedRoots: loader.refused });
}
