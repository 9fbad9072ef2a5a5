import { dirname, extname, join, resolve } from 'node:path';
import { SourceFamily } from './context-snippet';

/** The likeliest first: every miss is a stat. */
const TS_CANDIDATES = ['.ts', '.tsx', '/index.ts', '/index.tsx', '.js', '.jsx', '.d.ts', '.mjs', '.cjs', '/index.js'];
const JS_EMITTED = /\.(js|jsx|mjs|cjs)$/;

/**
 * Where a module may be, most likely first, as absolute paths to try in turn. TS/JS: relative
 * specifiers only (`./x`, `../y.js` written for ESM, a folder's index); a package or a path alias
 * is not the workspace's own code. Python: relative imports from the file's package, absolute ones
 * under each of `pythonBases` (the top of the file's package tree, the workspace roots).
 */
export function moduleCandidates(specifier: string, fromFile: string, family: SourceFamily, pythonBases: readonly string[] = []): string[] {
    return family === 'ts' ? tsCandidates(specifier, fromFile) : pyCandidates(specifier, fromFile, pythonBases);
}

/** `from pkg import name` may name a submodule rather than something `pkg` declares: the specifier of that submodule. */
export function submoduleSpecifier(module: string, name: string): string {
    return module.endsWith('.') ? `${module}${name}` : `${module}.${name}`;
}

function tsCandidates(specifier: string, fromFile: string): string[] {
    if (!specifier.startsWith('./') && !specifier.startsWith('../') && specifier !== '.' && specifier !== '..') {
        return [];
    }
    const base = resolve(dirname(fromFile), specifier);
    if (JS_EMITTED.test(base)) {
        const stem = base.replace(JS_EMITTED, '');
        const typed = base.endsWith('x') ? [`${stem}.tsx`, `${stem}.ts`] : [`${stem}.ts`, `${stem}.tsx`, `${stem}.d.ts`];
        return [...typed, base];
    }
    if (['.ts', '.tsx', '.mts', '.cts'].includes(extname(base))) {
        return [base];
    }
    return TS_CANDIDATES.map(ending => ending.startsWith('/') ? join(base, ending.slice(1)) : base + ending);
}

function pyCandidates(specifier: string, fromFile: string, bases: readonly string[]): string[] {
    const level = /^\.*/.exec(specifier)![0].length;
    const parts = specifier.slice(level).split('.').filter(Boolean);
    const inModule = (folder: string) => parts.length === 0
        ? [join(folder, '__init__.py')]
        : [`${join(folder, ...parts)}.py`, join(folder, ...parts, '__init__.py'), `${join(folder, ...parts)}.pyi`];
    if (level > 0) {
        let folder = dirname(fromFile);
        for (let up = 1; up < level; up++) {
            folder = dirname(folder);
        }
        return inModule(folder);
    }
    return [...new Set(bases)].flatMap(inModule);
}
