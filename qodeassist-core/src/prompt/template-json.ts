import { RenderBudget } from './template-limits';
import { isCallable, isPlainObject } from './template-values';
import { TemplateSandboxError } from './template-policy';

/**
 * `dump` and `json`: JSON.stringify of template data, after a walk that refuses what would make
 * it run code (a `toJSON` function in a dict) or grow past the text bound (a list holding the same
 * big list many times over), and a clear error for a list that contains itself.
 */
export function toJson(value: unknown, spaces: unknown, budget: RenderBudget): string | undefined {
    const size = { chars: 0 };
    measure(value, budget, size, new Set());
    const indent = typeof spaces === 'number' || typeof spaces === 'string' ? spaces : undefined;
    const text = JSON.stringify(value, undefined, indent) as string | undefined;
    if (text !== undefined) {
        budget.text(text.length, 'the JSON text');
    }
    // Nothing to write (undefined, a function): renders as nothing, as nunjucks' dump does.
    return text;
}

function measure(value: unknown, budget: RenderBudget, size: { chars: number }, active: Set<unknown>): void {
    if (typeof value === 'string') {
        size.chars += value.length + 2;
    } else if (value !== null && typeof value === 'object' && !isCallable(value)) {
        if (active.has(value)) {
            throw new TemplateSandboxError('the value given to dump contains itself', 'dump data that does not contain itself');
        }
        active.add(value);
        size.chars += 2;
        if (Array.isArray(value)) {
            for (const item of value) {
                measure(item, budget, size, active);
                size.chars += 1;
            }
        } else if (isPlainObject(value)) {
            if (Object.hasOwn(value, 'toJSON') && isCallable(value.toJSON)) {
                throw new TemplateSandboxError('a dict with a "toJSON" function cannot be dumped', 'rename the "toJSON" key');
            }
            for (const key of Object.keys(value)) {
                size.chars += key.length + 4;
                measure(value[key], budget, size, active);
            }
        }
        active.delete(value);
    } else {
        size.chars += 8;
    }
    budget.text(size.chars, 'the JSON text');
}
