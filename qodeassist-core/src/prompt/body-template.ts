import { renderTemplate } from './template-interpreter';
import { compileSandboxedTemplate, SandboxedTemplate, TemplateEnvironment, TemplateSandboxError } from './template-sandbox';

/** Where in `[body]` a problem is, and what it is. */
export class BodyTemplateError extends Error {
    constructor(readonly field: string, message: string, readonly fix: string, readonly templateLine?: number) {
        super(message);
        this.name = 'BodyTemplateError';
    }
}

type Node =
    | { kind: 'drop' }
    | { kind: 'literal'; value: unknown }
    | { kind: 'template'; template: SandboxedTemplate; source: string }
    | { kind: 'object'; entries: Array<[string, Node]> }
    | { kind: 'array'; items: Node[] };

export type TemplateVariables = Record<string, unknown>;

/**
 * An agent's `[body]`, compiled once. Literals pass through unchanged; a string with
 * `{{` or `{%` is a nunjucks template whose output must be JSON, spliced in raw; an
 * empty render drops the key (or array element), and so does an empty string, which
 * is how a child profile removes a field its base sets. The result IS the request body.
 */
export class BodyTemplate {
    private constructor(private readonly root: Node) { }

    static compile(body: Record<string, unknown>, environment: TemplateEnvironment, name: string): BodyTemplate {
        return new BodyTemplate(compileNode(body, environment, name, []));
    }

    render(variables: TemplateVariables): Record<string, unknown> {
        const value = renderNode(this.root, variables, []);
        return (value ?? {}) as Record<string, unknown>;
    }
}

function isTemplate(value: string): boolean {
    return value.includes('{{') || value.includes('{%');
}

function compileNode(value: unknown, environment: TemplateEnvironment, name: string, path: string[]): Node {
    if (value === '') {
        return { kind: 'drop' };
    }
    if (typeof value === 'string' && isTemplate(value)) {
        try {
            return { kind: 'template', template: compileSandboxedTemplate(value, environment, `${name}:body.${path.join('.')}`), source: value };
        } catch (error) {
            throw templateError(path, error);
        }
    }
    if (Array.isArray(value)) {
        return { kind: 'array', items: value.map((item, index) => compileNode(item, environment, name, [...path, String(index)])) };
    }
    if (value && typeof value === 'object' && !(value instanceof Date)) {
        return { kind: 'object', entries: Object.entries(value).map(([key, item]) => [key, compileNode(item, environment, name, [...path, key])]) };
    }
    return { kind: 'literal', value };
}

const DROP = Symbol('drop');

function renderNode(node: Node, variables: TemplateVariables, path: string[]): unknown {
    switch (node.kind) {
        case 'drop':
            return DROP;
        case 'literal':
            return node.value;
        case 'array':
            return node.items.map((item, index) => renderNode(item, variables, [...path, String(index)])).filter(item => item !== DROP);
        case 'object': {
            const result: Record<string, unknown> = {};
            for (const [key, child] of node.entries) {
                const value = renderNode(child, variables, [...path, key]);
                if (value !== DROP) {
                    result[key] = value;
                }
            }
            return result;
        }
        case 'template': {
            let text: string;
            try {
                text = renderSync(node.template, variables).trim();
            } catch (error) {
                throw templateError(path, error);
            }
            if (text === '') {
                return DROP;
            }
            try {
                return JSON.parse(text);
            } catch (error) {
                const excerpt = text.length > 160 ? `${text.slice(0, 160)}…` : text;
                throw new BodyTemplateError(path.join('.'),
                    `the template rendered text that is not JSON (${error instanceof Error ? error.message : String(error)}): ${excerpt}`,
                    'wrap strings with the dump filter ({{ value | dump }}) and check commas between list items');
            }
        }
    }
}

/** Renders a sandboxed template: its parsed tree is interpreted within the environment's limits (TemplateSandboxError names a limit it hits). */
export function renderSync(template: SandboxedTemplate, variables: object): string {
    return renderTemplate(template, variables);
}

/** A nunjucks compile or render failure as a BodyTemplateError, keeping the template line and the cause's own fix. */
function templateError(path: string[], error: unknown): BodyTemplateError {
    const cause = (error as { cause?: unknown })?.cause;
    const refused = error instanceof TemplateSandboxError ? error : cause instanceof TemplateSandboxError ? cause : undefined;
    if (refused) {
        // The sandbox's own words; a partial's line is in the message, the template line only for this field's own text.
        const ownLine = refused.partial === undefined ? refused.line ?? lineOf(error) : undefined;
        return new BodyTemplateError(path.join('.'), refused.message, refused.fix, ownLine);
    }
    const inner = error as { message?: string; fix?: string; lineno?: number };
    const message = String(inner.message ?? error);
    const line = lineOf(error);
    const fix = (inner.fix ?? (cause as { fix?: string } | undefined)?.fix) ?? findFix(message);
    const clean = message.replace(/^\(.*?\)\s*/, '').replace(/\s*\n\s*/g, ' ').trim();
    return new BodyTemplateError(path.join('.'), clean, fix, line);
}

function lineOf(error: unknown): number | undefined {
    const inner = error as { message?: string; lineno?: number };
    const line = inner?.lineno ?? Number(/\[Line (\d+)/.exec(String(inner?.message ?? error))?.[1]);
    return Number.isFinite(line) ? line : undefined;
}

function findFix(message: string): string {
    if (/no partial named|leaves the partial roots|outside its root/.test(message)) {
        return /no partial named/.test(message) ? 'create the partial or fix the include name' : 'include only files inside the partial roots';
    }
    if (/unknown role/.test(message)) {
        return 'create the role in roles/ or fix the id';
    }
    return 'fix the template syntax';
}
