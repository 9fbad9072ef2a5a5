import { RenderBudget } from './template-limits';
import { callRefused, isForbiddenMember, memberRefused, SAFE_METHODS, TemplateSandboxError } from './template-policy';

/**
 * The values a template handles, and the only ways it can touch them: member lookup, text conversion,
 * comparison and the safe data methods. Nothing here calls a value's own code (toString, valueOf,
 * toJSON, getters of non-data objects), so data cannot smuggle code into a render.
 */

/** Keyword arguments of a call (`m(x = 1)`), without a prototype. */
export type Keywords = Record<string, unknown>;

/** A macro or call block, callable from its template. Serialises like a function (dropped). */
export class TemplateMacro {
    constructor(readonly name: string, readonly invoke: (args: unknown[], keywords: Keywords | undefined) => string) { }
    toJSON(): undefined {
        return undefined;
    }
}

/** A function a template may call by name: nunjucks' range/cycler/joiner and what the host registers (agent_role). */
export class TemplateGlobal {
    constructor(readonly name: string, readonly invoke: (budget: RenderBudget, args: unknown[]) => unknown) { }
    toJSON(): undefined {
        return undefined;
    }
}

/** One of SAFE_METHODS, bound to the data it was read from. */
export class BoundMethod {
    constructor(readonly target: unknown, readonly name: string) { }
    toJSON(): undefined {
        return undefined;
    }
}

/** A method outside SAFE_METHODS: truthy for `{% if x.method %}`, refused when called. */
export class RefusedMethod {
    constructor(readonly name: string) { }
    toJSON(): undefined {
        return undefined;
    }
}

/** nunjucks' cycler() as data: `current`, `next()`, `reset()`. */
export class Cycler {
    current: unknown = null;
    private index = -1;
    constructor(private readonly items: unknown[]) { }
    next(): unknown {
        this.index = this.items.length === 0 ? -1 : (this.index + 1) % this.items.length;
        this.current = this.index < 0 ? undefined : this.items[this.index];
        return this.current;
    }
    reset(): void {
        this.index = -1;
        this.current = null;
    }
    toJSON(): undefined {
        return undefined;
    }
}

export function isCallable(value: unknown): boolean {
    return typeof value === 'function' || value instanceof TemplateMacro || value instanceof TemplateGlobal || value instanceof BoundMethod || value instanceof RefusedMethod;
}

/** Plain data objects: what JSON and dict literals make. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        return false;
    }
    const proto = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null;
}

/** JavaScript's String(value) for data, without calling any of the value's code; `output` renders none and undefined as nothing. */
export function toText(value: unknown, budget: RenderBudget, output = false): string {
    switch (typeof value) {
        case 'string':
            return value;
        case 'number':
        case 'boolean':
        case 'bigint':
            return String(value);
        case 'undefined':
            return output ? '' : 'undefined';
        case 'function':
            return '';
    }
    if (value === null) {
        return output ? '' : 'null';
    }
    if (Array.isArray(value)) {
        return joinText(value, ',', budget, new Set());
    }
    return isCallable(value) ? '' : '[object Object]';
}

/** Array.prototype.join for data: none and undefined are empty, a list inside itself is empty, the length is bounded as it grows. */
export function joinText(items: readonly unknown[], separator: string, budget: RenderBudget, active: Set<unknown>): string {
    if (active.has(items)) {
        return '';
    }
    active.add(items);
    const parts: string[] = [];
    let length = 0;
    for (let index = 0; index < items.length; index++) {
        const item = items[index];
        const text = item === null || item === undefined ? '' : Array.isArray(item) ? joinText(item, ',', budget, active) : toText(item, budget);
        length += text.length + (index > 0 ? separator.length : 0);
        budget.text(length, 'a joined list');
        parts.push(text);
    }
    active.delete(items);
    return parts.join(separator);
}

/** An operand of a comparison or arithmetic: lists and objects as their text, as JavaScript would, but without their code. */
export function primitive(value: unknown, budget: RenderBudget): unknown {
    return value !== null && (typeof value === 'object' || typeof value === 'function') ? toText(value, budget) : value;
}

/** A member name: text or a number; an object key would run its own toString. */
function memberName(key: unknown): string {
    if (typeof key === 'string') {
        return key;
    }
    if (typeof key === 'number' || typeof key === 'boolean' || key === undefined || key === null) {
        return String(key);
    }
    throw new TemplateSandboxError(`a member name must be text or a number, not ${Array.isArray(key) ? 'a list' : typeof key}`, 'use x.name, x["name"] or x[number]');
}

function inherited(proto: object, name: string, target: unknown): unknown {
    if (!(name in proto)) {
        return undefined;
    }
    return SAFE_METHODS.has(name) ? new BoundMethod(target, name) : new RefusedMethod(name);
}

/**
 * `obj.name` and `obj[key]`: own fields of data, a string's characters and length, and SAFE_METHODS
 * bound to their data. Members of functions and of non-data objects are refused, as are names
 * that lead to constructors and prototypes.
 */
export function memberLookup(obj: unknown, key: unknown): unknown {
    if (obj === undefined || obj === null) {
        return undefined;
    }
    const name = memberName(key);
    if (isForbiddenMember(name)) {
        throw memberRefused(name);
    }
    if (isCallable(obj)) {
        throw new TemplateSandboxError(`member access to "${name}" of a function is not allowed in templates; templates read data only`,
            'call the function or pass it to a filter; do not read its members');
    }
    switch (typeof obj) {
        case 'string':
            return name === 'length' ? obj.length : /^(0|[1-9]\d*)$/.test(name) ? obj[Number(name)] : inherited(String.prototype, name, obj);
        case 'number':
        case 'boolean':
            return inherited(Object.getPrototypeOf(obj) as object, name, obj);
        case 'object':
            break;
        default:
            return undefined;
    }
    if (Array.isArray(obj)) {
        return Object.hasOwn(obj, name) ? (obj as unknown as Record<string, unknown>)[name] : inherited(Array.prototype, name, obj);
    }
    if (obj instanceof Cycler) {
        return name === 'current' ? obj.current : name === 'next' || name === 'reset' ? new BoundMethod(obj, name) : undefined;
    }
    if (isPlainObject(obj)) {
        return Object.hasOwn(obj, name) ? obj[name] : inherited(Object.prototype, name, obj);
    }
    const kind = (Object.getPrototypeOf(obj) as { constructor?: { name?: string } } | null)?.constructor?.name ?? 'non-data';
    throw new TemplateSandboxError(`member access to "${name}" of a ${kind} object is not allowed in templates; templates read data only`,
        'read fields of ctx, model, agent and tools');
}

/** An attribute for filters (sort, groupby, selectattr, sum, join): like a lookup, but what a lookup would refuse is simply absent. */
export function attribute(obj: unknown, path: unknown): unknown {
    let value = obj;
    for (const part of String(path ?? '').split('.')) {
        try {
            value = memberLookup(value, part);
        } catch {
            return undefined;
        }
        if (isCallable(value)) {
            return undefined;
        }
    }
    return value;
}

const STRING_RESULTS_GROW = new Set(['repeat', 'padStart', 'padEnd', 'concat', 'replace', 'replaceAll']);

/** Calls one of SAFE_METHODS on its data, every size checked before the result is built. */
export function callMethod(method: BoundMethod, args: unknown[], budget: RenderBudget): unknown {
    const { target, name } = method;
    if (target instanceof Cycler) {
        return name === 'next' ? target.next() : target.reset();
    }
    if (name === 'hasOwnProperty') {
        return target !== null && typeof target === 'object' && Object.hasOwn(target, memberName(args[0]));
    }
    if (typeof target === 'string') {
        return callStringMethod(target, name, args, budget);
    }
    if (typeof target === 'number' || typeof target === 'boolean') {
        if (args.some(arg => arg !== null && typeof arg === 'object')) {
            throw plainArguments(name);
        }
        return name === 'toFixed' ? (target as number).toFixed(args[0] as number) : String(target);
    }
    if (Array.isArray(target)) {
        return callArrayMethod(target, name, args, budget);
    }
    throw callRefused(`".${name}"`);
}

function plainArguments(name: string): TemplateSandboxError {
    return new TemplateSandboxError(`".${name}" takes text and numbers as arguments`, 'pass text or numbers, not lists, objects or functions');
}

function callStringMethod(target: string, name: string, args: unknown[], budget: RenderBudget): unknown {
    if (args.some(arg => arg !== null && (typeof arg === 'object' || typeof arg === 'function'))) {
        throw plainArguments(name);
    }
    const text = args.map(arg => (arg === undefined ? undefined : String(arg)));
    budget.work(target.length);
    if (STRING_RESULTS_GROW.has(name)) {
        budget.text(grownLength(target, name, text), `".${name}"`);
    }
    if (name === 'split') {
        // Counted before the list is built: "x".repeat(n).split("") would make n items.
        const separator = text[0];
        const parts = separator === undefined ? 1 : separator === '' ? target.length : occurrences(target, separator) + 1;
        budget.list(args[1] === undefined ? parts : Math.min(parts, Number(args[1]) >>> 0), '".split"');
    }
    switch (name) {
        case 'replace':
            // A function replacer: `$&`, `` $` `` and `$'` patterns could multiply the text past any bound checked here.
            return target.replace(text[0] ?? 'undefined', () => text[1] ?? 'undefined');
        case 'replaceAll':
            return target.replaceAll(text[0] ?? 'undefined', () => text[1] ?? 'undefined');
        case 'concat':
            return target.concat(...text.map(part => part ?? 'undefined'));
        case 'toString':
            return target;
    }
    const native = (String.prototype as unknown as Record<string, (...values: unknown[]) => unknown>)[name];
    return native.apply(target, args);
}

function grownLength(target: string, name: string, args: Array<string | undefined>): number {
    switch (name) {
        case 'repeat':
            return target.length * Number(args[0] ?? 0);
        case 'padStart':
        case 'padEnd':
            return Math.max(target.length, Number(args[0] ?? 0));
        case 'concat':
            return args.reduce((sum, part) => sum + (part ?? 'undefined').length, target.length);
        default: {
            const pattern = args[0] ?? 'undefined';
            const replacement = args[1] ?? 'undefined';
            const count = name === 'replace' ? 1 : pattern === '' ? target.length + 1 : occurrences(target, pattern);
            return target.length + count * Math.max(0, replacement.length - pattern.length);
        }
    }
}

function occurrences(text: string, pattern: string): number {
    let count = 0;
    for (let index = text.indexOf(pattern); index !== -1; index = text.indexOf(pattern, index + pattern.length)) {
        count++;
    }
    return count;
}

function callArrayMethod(target: unknown[], name: string, args: unknown[], budget: RenderBudget): unknown {
    switch (name) {
        case 'push':
        case 'unshift':
            budget.list(target.length + args.length, `".${name}"`);
            break;
        case 'splice':
            budget.list(target.length + Math.max(0, args.length - 2), '".splice"');
            break;
        case 'concat':
            budget.list(args.reduce<number>((sum, arg) => sum + (Array.isArray(arg) ? arg.length : 1), target.length), '".concat"');
            break;
        case 'join':
            return joinText(target, args[0] === undefined ? ',' : toText(args[0], budget), budget, new Set());
        case 'toString':
            return joinText(target, ',', budget, new Set());
        case 'flat':
            return flatten(target, args[0] === undefined ? 1 : Number(args[0]), budget, [], new Set());
    }
    const native = (Array.prototype as unknown as Record<string, (...values: unknown[]) => unknown>)[name];
    return native.apply(target, args);
}

function flatten(items: readonly unknown[], depth: number, budget: RenderBudget, into: unknown[], active: Set<unknown>): unknown[] {
    if (active.has(items)) {
        throw new TemplateSandboxError('".flat" met a list that contains itself', 'flatten lists that do not contain themselves');
    }
    active.add(items);
    for (const item of items) {
        if (Array.isArray(item) && depth >= 1) {
            flatten(item, depth - 1, budget, into, active);
        } else {
            budget.list(into.length + 1, '".flat"');
            into.push(item);
        }
    }
    active.delete(items);
    return into;
}
