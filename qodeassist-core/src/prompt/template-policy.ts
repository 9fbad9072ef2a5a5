/**
 * What agent templates may do: read data, call registered functions, macros and a short list of
 * data methods. Shared by the load-time AST check and the interpreter, so both refuse the same things.
 */

/** A template refused by the sandbox: what it tried, where, and what to do instead. */
export class TemplateSandboxError extends Error {
    /**
     * @param reason what the template tried, in plain words
     * @param line 1-based line in the template (the partial's own line when `partial` is set)
     * @param partial the partial that holds the construct, when it is not the top-level template
     */
    constructor(readonly reason: string, readonly fix: string, readonly line?: number, readonly partial?: string) {
        super(partial ? `partial "${partial}"${line !== undefined ? ` line ${line}` : ''}: ${reason}` : reason);
        this.name = 'TemplateSandboxError';
    }
}

/**
 * Members that lead from data to constructors and prototypes. Any `__…` name is refused too. (A function's
 * `caller` and `arguments` are refused by the interpreter, which refuses every member of a function:
 * data such as a tool call's `arguments` keeps those names.)
 */
const FORBIDDEN_MEMBERS = new Set(['constructor', 'prototype']);

/** Names a template might try to reach the host through; none exists in a template's scope, so naming one is a mistake or an attack. */
const HOST_NAMES = new Set(['process', 'require', 'module', 'exports', 'global', 'globalThis', 'Function', 'eval', 'import', 'Reflect', 'Proxy', 'Object']);

/** Methods of strings, arrays and cyclers a template may call; none takes code or reaches a constructor. */
export const SAFE_METHODS: ReadonlySet<string> = new Set([
    // arrays
    'push', 'pop', 'shift', 'unshift', 'slice', 'splice', 'concat', 'join', 'indexOf', 'lastIndexOf', 'includes', 'reverse', 'at', 'flat',
    // strings
    'toUpperCase', 'toLowerCase', 'trim', 'trimStart', 'trimEnd', 'startsWith', 'endsWith', 'split', 'replace', 'replaceAll',
    'padStart', 'padEnd', 'repeat', 'charAt', 'charCodeAt', 'substring', 'substr', 'toString', 'toFixed',
    // objects and nunjucks' cycler()
    'hasOwnProperty', 'next', 'reset'
]);

export function isForbiddenMember(name: string): boolean {
    return FORBIDDEN_MEMBERS.has(name) || name.startsWith('__');
}

export function isForbiddenSymbol(name: string): boolean {
    return name === 'constructor' || name === 'prototype' || name.startsWith('__') || HOST_NAMES.has(name);
}

export const FIXES = {
    member: 'read fields of ctx, model, agent and tools instead',
    computed: 'use x.name, x["name"], x[variable] or x[number]',
    call: 'use a filter or a macro instead',
    include: 'write the partial name as a quoted string',
    key: 'rename the key'
} as const;

export function memberRefused(name: string, line?: number): TemplateSandboxError {
    return new TemplateSandboxError(`member access to "${name}" is not allowed in templates; templates read data only`,
        `remove the "${name}" lookup; ${FIXES.member}`, line);
}

export function symbolRefused(name: string, line?: number): TemplateSandboxError {
    return HOST_NAMES.has(name)
        ? new TemplateSandboxError(`"${name}" is not available in templates; templates see only ctx, model, agent, tools and registered functions`,
            'remove it: templates cannot reach Node.js or JavaScript globals', line)
        : new TemplateSandboxError(`the name "${name}" is not allowed in templates; templates read data only`, `rename it; ${FIXES.member}`, line);
}

export function callRefused(what: string, line?: number): TemplateSandboxError {
    return new TemplateSandboxError(`calling ${what} is not allowed in templates; templates call only registered functions, macros and data methods (push, join, split, …)`,
        FIXES.call, line);
}

export function computedMemberRefused(line?: number): TemplateSandboxError {
    return new TemplateSandboxError('a computed member name (x[…] built with "~", "+", a filter or a call) is not allowed in templates',
        FIXES.computed, line);
}
