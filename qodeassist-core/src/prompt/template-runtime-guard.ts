import * as nunjucks from 'nunjucks';
import { callRefused, isForbiddenMember, isForbiddenSymbol, memberRefused, SAFE_METHODS, symbolRefused, TemplateSandboxError } from './template-policy';

/* eslint-disable @typescript-eslint/no-explicit-any -- the compiled template code and nunjucks' runtime are untyped JavaScript */
type Callable = (...args: any[]) => any;

/** A compiled template's root or block function: nunjucks passes the runtime as the fourth argument. */
export type RenderFunction = (env: unknown, context: unknown, frame: unknown, runtime: unknown, callback: Callable) => void;

interface NunjucksRuntime {
    memberLookup(obj: any, val: any): any;
    contextOrFrameLookup(context: any, frame: any, name: string): any;
    callWrap(obj: any, name: string, context: any, args: any[]): any;
    makeMacro(argNames: string[], kwargNames: string[], func: Callable): Callable;
}

const runtime = (nunjucks as unknown as { runtime: NunjucksRuntime }).runtime;

/** Functions a template may call: macros it defined and safe methods bound to their data. Registered globals are checked per environment. */
const allowedCallables = new WeakSet<Callable>();

/** Values that hand out code execution or prototype writes; a template never holds one, whatever path it took. */
const DANGEROUS = new Set<unknown>([
    Function, Object, Reflect, Proxy, eval, globalThis, process, Object.prototype, Function.prototype,
    Object.getPrototypeOf(async function () { /* marker */ }).constructor,
    Object.getPrototypeOf(function* () { /* marker */ }).constructor,
    Object.getPrototypeOf(async function* () { /* marker */ }).constructor
]);

/** What a template may read members of: plain objects and arrays (the context's data), and nunjucks' marked-safe strings. */
const DATA_PROTOTYPES = new Set<unknown>([Object.prototype, Array.prototype, null, (runtime as unknown as { SafeString: { prototype: unknown } }).SafeString.prototype]);

let lastRefusal: TemplateSandboxError | undefined;

/**
 * Remembers a refusal: nunjucks rewraps errors thrown inside a render (a guarded lookup, or a hostile
 * partial refused by the loader) into plain ones, so renderSync asks for the original here.
 */
export function refused(error: TemplateSandboxError): TemplateSandboxError {
    lastRefusal = error;
    return error;
}

/** The last refusal of the guarded runtime, cleared on reading; renders are synchronous, so it belongs to the render just finished. */
export function takeLastRefusal(): TemplateSandboxError | undefined {
    const refusal = lastRefusal;
    lastRefusal = undefined;
    return refusal;
}

function refuseDangerous<T>(value: T, name: string): T {
    if (DANGEROUS.has(value)) {
        throw refused(new TemplateSandboxError(`"${name}" reached a JavaScript constructor or global; templates read data only`,
            'remove the expression; templates cannot reach JavaScript constructors'));
    }
    return value;
}

/** Member names are text or numbers; an object key would run its own toString. */
function memberName(val: unknown): string {
    if (typeof val === 'string') {
        return val;
    }
    if (typeof val === 'number' || typeof val === 'boolean' || val === undefined || val === null) {
        return String(val);
    }
    throw refused(new TemplateSandboxError(`a member name must be text or a number, not ${typeof val}`, 'use x.name, x["name"] or x[number]'));
}

function memberLookup(obj: any, val: unknown): any {
    if (obj === undefined || obj === null) {
        return undefined;
    }
    const name = memberName(val);
    if (isForbiddenMember(name)) {
        throw refused(memberRefused(name));
    }
    if (typeof obj === 'function') {
        // Functions carry no data, only ways out: caller, arguments, bind, call.
        throw refused(new TemplateSandboxError(`member access to "${name}" of a function is not allowed in templates; templates read data only`,
            'call the function or pass it to a filter; do not read its members'));
    }
    if (typeof obj === 'object' && !DATA_PROTOTYPES.has(Object.getPrototypeOf(obj))) {
        // Only data has members to read: nunjucks' own objects (the context, the environment, its loaders) are not data.
        throw refused(new TemplateSandboxError(`member access to "${name}" of a ${obj.constructor?.name ?? 'non-data'} object is not allowed in templates; templates read data only`,
            'read fields of ctx, model, agent and tools'));
    }
    const value = refuseDangerous(obj[name], name);
    if (typeof value !== 'function' || allowedCallables.has(value)) {
        return value;
    }
    if (!SAFE_METHODS.has(name)) {
        // Kept callable-looking for `{% if x.method %}`, but it refuses when anything, native code included, calls it.
        return () => {
            throw refused(callRefused(`".${name}"`));
        };
    }
    const method: Callable = (...args) => refuseDangerous(value.apply(obj, args), name);
    allowedCallables.add(method);
    return method;
}

function contextOrFrameLookup(context: any, frame: any, name: string): any {
    if (isForbiddenSymbol(name)) {
        throw refused(symbolRefused(name));
    }
    return refuseDangerous(runtime.contextOrFrameLookup(context, frame, name), name);
}

function callWrap(obj: any, name: string, context: any, args: any[]): any {
    if (typeof obj === 'function' && !allowedCallables.has(obj) && !isRegisteredGlobal(context, obj)) {
        throw refused(callRefused(`"${name}"`));
    }
    return refuseDangerous(runtime.callWrap(obj, name, context, args), name);
}

function isRegisteredGlobal(context: any, fn: Callable): boolean {
    const globals = context?.env?.globals as Record<string, unknown> | undefined;
    return !!globals && Object.keys(globals).some(key => globals[key] === fn);
}

function makeMacro(argNames: string[], kwargNames: string[], func: Callable): Callable {
    const macro = runtime.makeMacro(argNames, kwargNames, func);
    allowedCallables.add(macro);
    return macro;
}

/** nunjucks' runtime with every lookup and call checked; compiled code reaches data only through these. */
export const guardedRuntime: Readonly<Record<string, unknown>> = Object.freeze({
    ...(runtime as unknown as Record<string, unknown>), memberLookup, contextOrFrameLookup, callWrap, makeMacro
});

/** A root or block function that runs with the guarded runtime, whatever runtime nunjucks passes. */
export function guardRenderFunction(render: RenderFunction): RenderFunction {
    return (env, context, frame, _runtime, callback) => render(env, context, frame, guardedRuntime, callback);
}
