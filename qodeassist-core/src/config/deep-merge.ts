export type Table = Record<string, unknown>;

function isTable(value: unknown): value is Table {
    return !!value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/** `extends` semantics: tables merge key by key, recursively; anything else (arrays included) — the child wins. */
export function deepMerge(base: Table, child: Table): Table {
    const result: Table = { ...base };
    for (const [key, value] of Object.entries(child)) {
        result[key] = isTable(value) && isTable(result[key]) ? deepMerge(result[key] as Table, value) : value;
    }
    return result;
}

/** Dotted paths of every leaf (and every non-table value) in a table, for tracking where each came from. */
export function leafPaths(table: Table, prefix: string[] = []): string[][] {
    return Object.entries(table).flatMap(([key, value]) =>
        isTable(value) ? [[...prefix, key], ...leafPaths(value, [...prefix, key])] : [[...prefix, key]]);
}
