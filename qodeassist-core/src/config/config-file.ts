import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';
import { ConfigIssue, didYouMean, findKeyLine } from './config-issue';
import { FileKind, migrate } from './migrations';

/** A configuration file as read from disk or the bundled packages. */
export interface ConfigFile {
    /** Shown in messages: an absolute path, or `bundled:agents/…`. */
    label: string;
    /** A real path on disk, for watching and "Open file". */
    path: string;
    text: string;
}

export type Parsed<T> = { value: T; issues: ConfigIssue[] } | { value: undefined; issues: ConfigIssue[] };

/** Parses TOML; a syntax error becomes one issue with the parser's line. */
export function readToml(file: ConfigFile): Parsed<Record<string, unknown>> {
    try {
        return { value: parseToml(file.text) as Record<string, unknown>, issues: [] };
    } catch (error) {
        const toml = error instanceof TomlError ? error : undefined;
        const firstLine = (error instanceof Error ? error.message : String(error)).split('\n')[0].replace(/^Invalid TOML document:\s*/, '');
        return {
            value: undefined,
            issues: [{
                severity: 'error', file: file.label, line: toml?.line, message: `TOML syntax error: ${firstLine}`,
                fix: 'fix the syntax at that line; every other file still loads'
            }]
        };
    }
}

export function readJson(file: ConfigFile): Parsed<unknown> {
    try {
        return { value: JSON.parse(file.text), issues: [] };
    } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const offset = jsonErrorOffset(message, file.text);
        const line = offset !== undefined ? file.text.slice(0, offset).split('\n').length : undefined;
        return { value: undefined, issues: [{ severity: 'error', file: file.label, line, message: `JSON syntax error: ${message}`, fix: 'fix the JSON at that line' }] };
    }
}

/**
 * Where JSON.parse failed, from its message: newer engines give `position N`; Node 20
 * gives the unexpected token and a quoted excerpt around it, which is found in the text.
 */
export function jsonErrorOffset(message: string, text: string): number | undefined {
    const position = /position (\d+)/.exec(message);
    if (position) {
        return Number(position[1]);
    }
    const excerpt = /"((?:[^"\\]|\\.)*)" is not valid JSON/.exec(message);
    const token = /Unexpected token '(.)'/.exec(message)?.[1];
    if (!excerpt) {
        return /Unexpected end of JSON input/.test(message) ? text.length : undefined;
    }
    let snippet: string;
    try {
        snippet = JSON.parse(`"${excerpt[1]}"`) as string;
    } catch {
        return undefined;
    }
    const core = snippet.replace(/^\.\.\./, '').replace(/\.\.\.$/, '');
    const start = text.indexOf(core);
    if (start < 0) {
        return undefined;
    }
    const within = token ? core.lastIndexOf(token) : -1;
    return start + Math.max(0, within);
}

/** Turns zod issues into ConfigIssues with line numbers and "did you mean" for unknown keys. */
export function schemaIssues(file: ConfigFile, error: z.ZodError, knownKeysAt: (path: PropertyKey[]) => string[]): ConfigIssue[] {
    const issues: ConfigIssue[] = [];
    for (const issue of error.issues) {
        const path = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
        if (issue.code === 'unrecognized_keys') {
            for (const key of issue.keys) {
                const suggestion = didYouMean(key, knownKeysAt(issue.path));
                const field = [...path, key].join('.');
                issues.push({
                    severity: 'error', file: file.label, line: findKeyLine(file.text, [...path, key]), field,
                    message: `unknown key "${key}"`,
                    fix: suggestion ? `did you mean "${suggestion}"?` : `remove it; known keys here: ${knownKeysAt(issue.path).join(', ')}`
                });
            }
            continue;
        }
        const field = path.join('.') || undefined;
        issues.push({
            severity: 'error', file: file.label, line: findKeyLine(file.text, path), field,
            message: issue.code === 'invalid_type' && /received undefined/.test(issue.message) ? `missing required key "${path.at(-1)}"` : issue.message,
            fix: issue.code === 'invalid_type' && /received undefined/.test(issue.message) ? `add ${String(path.at(-1))} = …` : undefined
        });
    }
    return issues;
}

/** Parse + validate one JSON file (roles, model overrides, key origins: no schema_version to migrate). */
export function loadJsonFile<T>(file: ConfigFile, schema: z.ZodType<T>, knownKeysAt: (path: PropertyKey[]) => string[]): Parsed<T> {
    const parsed = readJson(file);
    if (parsed.value === undefined) {
        return { value: undefined, issues: parsed.issues };
    }
    const result = schema.safeParse(parsed.value);
    return result.success ? { value: result.data, issues: [] } : { value: undefined, issues: schemaIssues(file, result.error, knownKeysAt) };
}

/** Parse + migrate + validate one TOML file against a strict schema. */
export function loadTomlFile<T>(file: ConfigFile, kind: FileKind, schema: z.ZodType<T>, knownKeysAt: (path: PropertyKey[]) => string[]): Parsed<T> {
    const parsed = readToml(file);
    if (!parsed.value) {
        return parsed;
    }
    const migrated = migrate(kind, parsed.value);
    if (migrated.error || !migrated.value) {
        return {
            value: undefined,
            issues: [{
                severity: 'error', file: file.label, line: findKeyLine(file.text, ['schema_version']), field: 'schema_version',
                message: migrated.error?.message ?? 'unreadable schema version', fix: migrated.error?.fix
            }]
        };
    }
    const issues: ConfigIssue[] = migrated.notice
        ? [{ severity: 'notice', file: file.label, line: findKeyLine(file.text, ['schema_version']), field: 'schema_version', message: migrated.notice }]
        : [];
    const result = schema.safeParse(migrated.value);
    if (!result.success) {
        return { value: undefined, issues: [...issues, ...schemaIssues(file, result.error, knownKeysAt)] };
    }
    return { value: result.data, issues };
}
