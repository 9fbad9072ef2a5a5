import { RenderBudget } from './template-limits';
import { toJson } from './template-json';
import { TemplateSandboxError } from './template-policy';
import { attribute, isCallable, isPlainObject, joinText, primitive, toText } from './template-values';

/**
 * nunjucks' built-in filters and tests, re-implemented over plain data with the same results
 * (nunjucks' own read arbitrary attributes and build objects with prototypes), every size checked
 * before it is built. Left out: random (not deterministic), striptags, urlize, urlencode, forceescape.
 */

export type Filter = (budget: RenderBudget, value: unknown, ...args: unknown[]) => unknown;
export type Test = (budget: RenderBudget, value: unknown, ...args: unknown[]) => boolean;

function text(value: unknown, budget: RenderBudget): string {
    // nunjucks' normalize(value, ''): none, undefined and false read as empty text.
    return value === null || value === undefined || value === false ? '' : toText(value, budget);
}

function list(value: unknown, filter: string, budget: RenderBudget): unknown[] {
    if (Array.isArray(value)) {
        return value;
    }
    if (typeof value === 'string') {
        budget.list(value.length, `the characters given to ${filter}`);
        return value.split('');
    }
    throw new TemplateSandboxError(`the ${filter} filter needs a list`, `give ${filter} a list (or text)`);
}

/** `a < b` as JavaScript compares data, without running code of objects. */
export function compareValues(a: unknown, b: unknown, budget: RenderBudget): number {
    const x = primitive(a, budget) as number;
    const y = primitive(b, budget) as number;
    return x < y ? -1 : x > y ? 1 : 0;
}

function spaces(count: number, budget: RenderBudget): string {
    const whole = Math.max(0, Math.ceil(count));
    budget.text(whole, 'padding');
    return ' '.repeat(whole);
}

/** What one match of replace costs, in characters of MAX_TEXT_WORK. */
const WORK_PER_MATCH = 32;

function replace(budget: RenderBudget, value: unknown, old: unknown, replacement: unknown, maxCount: unknown): unknown {
    const source = typeof value === 'number' ? String(value) : value;
    const pattern = typeof old === 'number' ? String(old) : old;
    if (typeof source !== 'string' || typeof pattern !== 'string') {
        return value;
    }
    const insert = toText(replacement, budget);
    const limit = maxCount === undefined ? -1 : Number(maxCount);
    if (pattern === '') {
        budget.text(source.length + (source.length + 1) * insert.length, 'the replaced text');
        return insert + list(source, 'replace', budget).join(insert) + insert;
    }
    let next = source.indexOf(pattern);
    if (limit === 0 || next === -1) {
        return source;
    }
    if (limit < 0) {
        // Every occurrence: counted first (no allocation), sized, then replaced natively in one pass.
        let occurrences = 0;
        for (let at = next; at > -1; at = source.indexOf(pattern, at + pattern.length)) {
            occurrences++;
        }
        budget.text(source.length + occurrences * (insert.length - pattern.length), 'the replaced text');
        // Each match costs far more than a character (about 100 ns here): charged before the work.
        budget.work(occurrences * WORK_PER_MATCH);
        return source.split(pattern).join(insert);
    }
    const parts: string[] = [];
    let length = 0;
    let position = 0;
    let count = 0;
    while (next > -1 && (limit === -1 || count < limit)) {
        budget.work(WORK_PER_MATCH);
        length += next - position + insert.length;
        budget.text(length + source.length - next, 'the replaced text');
        parts.push(source.substring(position, next), insert);
        position = next + pattern.length;
        count++;
        next = source.indexOf(pattern, position);
    }
    parts.push(source.substring(position));
    return parts.join('');
}

function batch(budget: RenderBudget, value: unknown, size: unknown, fill: unknown): unknown[][] {
    const items = list(value, 'batch', budget);
    const count = Number(size);
    if (fill && count > 0) {
        budget.list(count, 'a batch');
    }
    const result: unknown[][] = [];
    let current: unknown[] = [];
    for (let index = 0; index < items.length; index++) {
        if (index % count === 0 && current.length) {
            result.push(current);
            current = [];
        }
        current.push(items[index]);
    }
    if (current.length) {
        for (let index = current.length; fill && index < count; index++) {
            current.push(fill);
        }
        result.push(current);
    }
    return result;
}

function slice(budget: RenderBudget, value: unknown, slices: unknown, fill: unknown): unknown[][] {
    const items = list(value, 'slice', budget);
    const count = Number(slices);
    budget.list(count, 'the slices');
    const length = Math.floor(items.length / count);
    const extra = items.length % count;
    const result: unknown[][] = [];
    let offset = 0;
    for (let index = 0; index < count; index++) {
        const start = offset + index * length;
        if (index < extra) {
            offset++;
        }
        const part = items.slice(start, offset + (index + 1) * length);
        if (fill && index >= extra) {
            part.push(fill);
        }
        result.push(part);
    }
    return result;
}

function sort(budget: RenderBudget, value: unknown, reversed: unknown, caseSensitive: unknown, by: unknown): unknown[] {
    const items = [...list(value, 'sort', budget)];
    const key = (item: unknown) => {
        const found = by ? attribute(item, by) : item;
        return !caseSensitive && typeof found === 'string' ? found.toLowerCase() : found;
    };
    return items.sort((a, b) => compareValues(key(a), key(b), budget) * (reversed ? -1 : 1));
}

function dictsort(budget: RenderBudget, value: unknown, caseSensitive: unknown, by: unknown): unknown[] {
    if (!isPlainObject(value)) {
        throw new TemplateSandboxError('the dictsort filter needs a dict', 'give dictsort a dict');
    }
    if (by !== undefined && by !== 'key' && by !== 'value') {
        throw new TemplateSandboxError('dictsort can only sort by "key" or "value"', 'write dictsort(false, "key") or dictsort(false, "value")');
    }
    const index = by === 'value' ? 1 : 0;
    const upper = (item: unknown) => (!caseSensitive && typeof item === 'string' ? item.toUpperCase() : item);
    return Object.keys(value).map(key => [key, value[key]]).sort((a, b) => compareValues(upper(a[index]), upper(b[index]), budget));
}

function groupby(budget: RenderBudget, value: unknown, by: unknown): Record<string, unknown[]> {
    const groups: Record<string, unknown[]> = Object.create(null);
    for (const item of list(value, 'groupby', budget)) {
        const key = toText(attribute(item, by), budget);
        (groups[key] ??= []).push(item);
    }
    return groups;
}

function length(_budget: RenderBudget, value: unknown): unknown {
    if (value === null || value === undefined || value === false) {
        return 0;
    }
    if (isPlainObject(value)) {
        return Object.keys(value).length;
    }
    return typeof value === 'string' || Array.isArray(value) ? value.length : undefined;
}

function truncate(budget: RenderBudget, value: unknown, size: unknown, killwords: unknown, end: unknown): string {
    let input = text(value, budget);
    const limit = Number(size) || 255;
    if (input.length <= limit) {
        return input;
    }
    if (killwords) {
        input = input.substring(0, limit);
    } else {
        const cut = input.lastIndexOf(' ', limit);
        input = input.substring(0, cut === -1 ? limit : cut);
    }
    const tail = end !== undefined && end !== null ? toText(end, budget) : '...';
    budget.text(input.length + tail.length);
    return input + tail;
}

function indent(budget: RenderBudget, value: unknown, width: unknown, first: unknown): string {
    const input = text(value, budget);
    if (input === '') {
        return '';
    }
    const count = Number(width) || 4;
    const breaks = input.length - input.replaceAll('\n', '').length;
    budget.text(input.length + (breaks + 1) * Math.max(0, count), 'the indented text');
    budget.list(breaks + 1, 'the lines to indent');
    const lines = input.split('\n');
    const pad = spaces(count, budget);
    return lines.map((line, index) => (index === 0 && !first ? line : pad + line)).join('\n');
}

function center(budget: RenderBudget, value: unknown, width: unknown): string {
    const input = text(value, budget);
    const size = Number(width) || 80;
    if (input.length >= size) {
        return input;
    }
    budget.text(size, 'the centered text');
    const free = size - input.length;
    return spaces(free / 2 - (free % 2), budget) + input + spaces(free / 2, budget);
}

function sum(budget: RenderBudget, value: unknown, by: unknown, start: unknown): unknown {
    let total: unknown = start ?? 0;
    for (const item of list(value, 'sum', budget)) {
        total = add(total, by ? attribute(item, by) : item, budget);
    }
    return total;
}

/** `a + b` as JavaScript adds data: text when either side is text (length checked first), else numbers. */
export function add(a: unknown, b: unknown, budget: RenderBudget): unknown {
    const left = primitive(a, budget);
    const right = primitive(b, budget);
    if (typeof left === 'string' || typeof right === 'string') {
        const l = String(left);
        const r = String(right);
        budget.text(l.length + r.length, 'the added text');
        return l + r;
    }
    return (left as number) + (right as number);
}

/** Counted without building the list of words, which could be millions of entries. */
function wordcount(input: string): number | null {
    const word = /\w+/g;
    let count = 0;
    while (word.exec(input)) {
        count++;
    }
    return count || null;
}

const capitalize = (value: string) => value.charAt(0).toUpperCase() + value.slice(1).toLowerCase();
const escapes: Record<string, string> = { '&': '&amp;', '"': '&quot;', '\'': '&#39;', '<': '&lt;', '>': '&gt;', '\\': '&#92;' };

function selectBy(budget: RenderBudget, tests: ReadonlyMap<string, Test>, value: unknown, name: unknown, arg: unknown, expected: boolean): unknown[] {
    const test = tests.get(typeof name === 'string' ? name : 'truthy');
    if (!test) {
        throw new TemplateSandboxError(`the test "${String(name)}" is not a registered test`, 'use one of nunjucks\' tests, e.g. select("odd")');
    }
    return list(value, expected ? 'select' : 'reject', budget).filter(item => test(budget, item, arg) === expected);
}

/** The built-in filters; select and reject look their test up among `tests`. */
export function builtinFilters(tests: ReadonlyMap<string, Test>): Map<string, Filter> {
    const defaultFilter: Filter = (_b, value, fallback, boolean) => (boolean ? value || fallback : value !== undefined ? value : fallback);
    const escape: Filter = (budget, value) => {
        const source = text(value, budget);
        // Sized before it is built: each escaped character grows to its entity.
        let grown = source.length;
        for (let index = 0; index < source.length; index++) {
            const entity = escapes[source[index]];
            grown += entity === undefined ? 0 : entity.length - 1;
        }
        budget.text(grown, 'the escaped text');
        return source.replace(/[&"'<>\\]/g, ch => escapes[ch]);
    };
    const filters: Array<[string, Filter]> = [
        ['abs', (budget, value) => Math.abs(primitive(value, budget) as number)],
        ['batch', batch],
        ['capitalize', (budget, value) => capitalize(text(value, budget))],
        ['center', center],
        ['default', defaultFilter],
        ['d', defaultFilter],
        ['dictsort', dictsort],
        ['dump', (budget, value, indentBy) => toJson(value, indentBy, budget)],
        ['json', (budget, value) => toJson(value ?? null, undefined, budget)],
        ['escape', escape],
        ['e', escape],
        ['safe', (_b, value) => value],
        ['first', (_b, value) => (Array.isArray(value) || typeof value === 'string' ? value[0] : undefined)],
        ['last', (_b, value) => (Array.isArray(value) || typeof value === 'string' ? value[value.length - 1] : undefined)],
        ['float', (budget, value, fallback) => { const parsed = parseFloat(toText(value, budget)); return Number.isNaN(parsed) ? fallback : parsed; }],
        ['int', (budget, value, fallback, base) => { const parsed = parseInt(toText(value, budget), base === undefined ? 10 : Number(base)); return Number.isNaN(parsed) ? fallback : parsed; }],
        ['groupby', groupby],
        ['indent', indent],
        ['join', (budget, value, separator, by) => {
            const items = by ? list(value, 'join', budget).map(item => attribute(item, by)) : list(value, 'join', budget);
            return joinText(items, separator ? toText(separator, budget) : '', budget, new Set());
        }],
        ['length', length],
        ['count', length],
        ['list', (budget, value) => (isPlainObject(value) ? Object.keys(value).map(key => ({ key, value: value[key] })) : [...list(value, 'list', budget)])],
        ['lower', (budget, value) => text(value, budget).toLowerCase()],
        ['upper', (budget, value) => text(value, budget).toUpperCase()],
        ['nl2br', (budget, value) => text(value, budget).replace(/\r\n|\n/g, '<br />\n')],
        ['replace', replace],
        ['reverse', (budget, value) => (typeof value === 'string' ? list(value, 'reverse', budget).reverse().join('') : [...list(value, 'reverse', budget)].reverse())],
        ['round', (budget, value, precision, method) => {
            const factor = Math.pow(10, Number(precision ?? 0));
            const rounder = method === 'ceil' ? Math.ceil : method === 'floor' ? Math.floor : Math.round;
            return rounder((primitive(value, budget) as number) * factor) / factor;
        }],
        ['select', (budget, value, name, arg) => selectBy(budget, tests, value, name, arg, true)],
        ['reject', (budget, value, name, arg) => selectBy(budget, tests, value, name, arg, false)],
        ['selectattr', (budget, value, by) => list(value, 'selectattr', budget).filter(item => !!attribute(item, by))],
        ['rejectattr', (budget, value, by) => list(value, 'rejectattr', budget).filter(item => !attribute(item, by))],
        ['slice', slice],
        ['sort', sort],
        ['string', (budget, value) => toText(value, budget)],
        ['sum', sum],
        ['title', (budget, value) => text(value, budget).replace(/[^ ]+/g, capitalize)],
        ['trim', (budget, value) => text(value, budget).replace(/^\s*|\s*$/g, '')],
        ['truncate', truncate],
        ['wordcount', (budget, value) => wordcount(text(value, budget))]
    ];
    return new Map(filters);
}

/** The built-in tests (`x is defined`, `select("odd")`). */
export function builtinTests(): Map<string, Test> {
    const is = (check: (value: unknown, other: unknown) => boolean): Test => (_b, value, other) => check(value, other);
    // As JavaScript's operators do: `undefined >= 1` is false both ways.
    const compare = (check: (a: number, b: number) => boolean): Test => (budget, value, other) =>
        check(primitive(value, budget) as number, primitive(other, budget) as number);
    const isNone = is(value => value === null);
    const same = is((value, other) => value === other);
    const tests: Array<[string, Test]> = [
        ['callable', is(value => isCallable(value))],
        ['defined', is(value => value !== undefined)],
        ['undefined', is(value => value === undefined)],
        ['none', isNone],
        ['null', isNone],
        ['number', is(value => typeof value === 'number')],
        ['string', is(value => typeof value === 'string')],
        ['odd', is(value => (value as number) % 2 === 1)],
        ['even', is(value => (value as number) % 2 === 0)],
        ['divisibleby', is((value, other) => (value as number) % (other as number) === 0)],
        ['eq', same], ['equalto', same], ['sameas', same],
        ['ne', is((value, other) => value !== other)],
        ['truthy', is(value => !!value)],
        ['falsy', is(value => !value)],
        ['escaped', is(() => false)],
        ['lower', is(value => typeof value === 'string' && value.toLowerCase() === value)],
        ['upper', is(value => typeof value === 'string' && value.toUpperCase() === value)],
        ['iterable', is(value => typeof value === 'string' || Array.isArray(value))],
        ['mapping', is(value => isPlainObject(value))],
        ['ge', compare((a, b) => a >= b)],
        ['gt', compare((a, b) => a > b)], ['greaterthan', compare((a, b) => a > b)],
        ['le', compare((a, b) => a <= b)],
        ['lt', compare((a, b) => a < b)], ['lessthan', compare((a, b) => a < b)]
    ];
    return new Map(tests);
}
