import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../ports/logger';
import { QodeAssistError, untilAborted } from '../wire/error-info';

/** One field of an elicitation form: only the primitive kinds the MCP spec allows in a requested schema. */
export type McpFormField = {
    name: string;
    title: string;
    description?: string;
    required: boolean;
    /**
     * Set when the field's name or title reads like a credential (`OPENAI_API_KEY`, `apiKey`, `password`…):
     * the form warns that the server asks for a secret, and nothing is ever filled in for it.
     */
    secretLike: boolean;
} & (
    | { kind: 'string'; format?: 'email' | 'uri' | 'date' | 'date-time'; minLength?: number; maxLength?: number; default?: string }
    | { kind: 'number'; integer: boolean; minimum?: number; maximum?: number; default?: number }
    | { kind: 'boolean'; default?: boolean }
    | { kind: 'enum'; options: Array<{ value: string; label: string }>; default?: string }
    | { kind: 'multi-enum'; options: Array<{ value: string; label: string }>; minItems?: number; maxItems?: number; default?: string[] }
);

/** What the chat shows of a server's question: a form (its fields) or a page to open (URL mode). */
export type McpElicitationRequest = {
    server: string;
    message: string;
    /** The chat whose tool call is waiting on the answer; absent when no call of that server is running. */
    chatId?: string;
    requestId?: string;
} & ({ mode: 'form'; fields: McpFormField[] } | { mode: 'url'; url: string; origin: string; elicitationId: string });

export type McpFormValue = string | number | boolean | string[];

/** The user's answer: accept with the values typed (form) or the page opened (URL); decline says no; cancel dismisses. */
export type McpElicitationAnswer = { action: 'accept'; content?: Record<string, McpFormValue> } | { action: 'decline' } | { action: 'cancel' };

/** Where a server's question goes: the IDE shows it in the chat; without one every question is declined. */
export interface McpElicitationPrompt {
    /** `signal` aborts when the server withdraws the question or the turn that waits on it is stopped. */
    ask(request: McpElicitationRequest, signal: AbortSignal): Promise<McpElicitationAnswer>;
}

/** Where questions go when nobody can be asked (an ACP client's servers): each is declined without being shown, and the log says why. */
export function declineEveryQuestion(reason: string, logger?: Logger): McpElicitationPrompt {
    return {
        ask: async request => {
            // The server's own text is not logged: only which server asked, and why the answer is no.
            logger?.log('warn', 'qodeassist.mcp', `The MCP server "${request.server}" asked the user a question (${request.mode} mode); it was declined: ${reason}`);
            return { action: 'decline' };
        }
    };
}

/**
 * Names and titles that read like a credential. Only a warning (the form says so): the protection
 * is that the hub never fills a field, so only what the user types is sent.
 */
const SECRET_WORDS = /(api[-_ ]?key|apikey|secret|token|passw(or)?d|passphrase|credential|private[-_ ]?key|access[-_ ]?key|auth|cookie|session[-_ ]?id|(^|[-_ ])(key|pat)($|[-_ ]))/i;

export function namesASecret(name: string, title?: string): boolean {
    return SECRET_WORDS.test(name) || (title !== undefined && SECRET_WORDS.test(title));
}

type FormParams = Extract<ElicitRequest['params'], { requestedSchema: unknown }>;
type SchemaProperty = FormParams['requestedSchema']['properties'][string];

/**
 * The fields of a form-mode request, one per property. A property of a kind the spec does not
 * allow (an object, a nested array, a `$ref`) makes the whole request refused: a partial form
 * would send the server an answer it did not ask for.
 */
export function formFields(schema: FormParams['requestedSchema']): McpFormField[] {
    const required = new Set(schema.required ?? []);
    return Object.entries(schema.properties).map(([name, property]) => field(name, property as SchemaProperty & Record<string, unknown>, required.has(name)));
}

function field(name: string, property: SchemaProperty & Record<string, unknown>, required: boolean): McpFormField {
    const title = typeof property.title === 'string' ? property.title : name;
    const secretLike = namesASecret(name, title);
    const base = { name, title, required, secretLike, ...(typeof property.description === 'string' ? { description: property.description } : {}) };
    // A server's default for a credential-named field is not shown: the user types it, or it stays empty.
    const fallback = <T>(value: T | undefined): { default?: T } => (value === undefined || secretLike ? {} : { default: value });
    if (property.type === 'boolean') {
        return { ...base, kind: 'boolean', ...fallback(property.default as boolean | undefined) };
    }
    if (property.type === 'number' || property.type === 'integer') {
        return { ...base, kind: 'number', integer: property.type === 'integer', ...numbers(property, ['minimum', 'maximum']), ...fallback(property.default as number | undefined) };
    }
    if (property.type === 'string' && (Array.isArray(property.enum) || Array.isArray(property.oneOf))) {
        return { ...base, kind: 'enum', options: enumOptions(property), ...fallback(property.default as string | undefined) };
    }
    if (property.type === 'string') {
        const format = property.format as 'email' | 'uri' | 'date' | 'date-time' | undefined;
        return { ...base, kind: 'string', ...(format ? { format } : {}), ...numbers(property, ['minLength', 'maxLength']), ...fallback(property.default as string | undefined) };
    }
    if (property.type === 'array' && typeof property.items === 'object' && property.items !== null) {
        return { ...base, kind: 'multi-enum', options: enumOptions(property.items as Record<string, unknown>), ...numbers(property, ['minItems', 'maxItems']), ...fallback(property.default as string[] | undefined) };
    }
    throw new QodeAssistError({ category: 'Validation', message: `The MCP server asked for "${name}" as a ${String(property.type)}; a form takes only strings, numbers, booleans and choices. The question was refused; ask the server's author to follow the elicitation schema.` });
}

function numbers<K extends string>(property: Record<string, unknown>, keys: K[]): Partial<Record<K, number>> {
    return Object.fromEntries(keys.filter(key => typeof property[key] === 'number').map(key => [key, property[key] as number])) as Partial<Record<K, number>>;
}

function enumOptions(property: Record<string, unknown>): Array<{ value: string; label: string }> {
    const titled = (property.oneOf ?? property.anyOf) as Array<{ const: string; title: string }> | undefined;
    if (titled) {
        return titled.map(option => ({ value: option.const, label: option.title }));
    }
    const values = property.enum as string[];
    const names = property.enumNames as string[] | undefined;
    return values.map((value, index) => ({ value, label: names?.[index] ?? value }));
}

/**
 * Checks the user's values against the form, field by field; the first problem as a sentence
 * that names the field, or undefined when the answer may be sent. Only the form's own fields
 * are kept: nothing else goes to the server.
 */
export function formProblem(fields: McpFormField[], values: Record<string, unknown>): string | undefined {
    for (const field of fields) {
        const problem = fieldProblem(field, values[field.name]);
        if (problem) {
            return `${field.title}: ${problem}`;
        }
    }
    return undefined;
}

function fieldProblem(field: McpFormField, value: unknown): string | undefined {
    if (value === undefined || value === '') {
        return field.required ? 'required' : undefined;
    }
    switch (field.kind) {
        case 'boolean':
            return typeof value === 'boolean' ? undefined : 'must be yes or no';
        case 'number':
            if (typeof value !== 'number' || !Number.isFinite(value) || (field.integer && !Number.isInteger(value))) {
                return field.integer ? 'must be a whole number' : 'must be a number';
            }
            if (field.minimum !== undefined && value < field.minimum) {
                return `must be at least ${field.minimum}`;
            }
            return field.maximum !== undefined && value > field.maximum ? `must be at most ${field.maximum}` : undefined;
        case 'enum':
            return field.options.some(option => option.value === value) ? undefined : 'must be one of the choices';
        case 'multi-enum':
            if (!Array.isArray(value) || !value.every(item => field.options.some(option => option.value === item))) {
                return 'must be some of the choices';
            }
            if (field.minItems !== undefined && value.length < field.minItems) {
                return `choose at least ${field.minItems}`;
            }
            return field.maxItems !== undefined && value.length > field.maxItems ? `choose at most ${field.maxItems}` : undefined;
        case 'string':
            if (typeof value !== 'string') {
                return 'must be text';
            }
            if (field.minLength !== undefined && value.length < field.minLength) {
                return `must be at least ${field.minLength} characters`;
            }
            if (field.maxLength !== undefined && value.length > field.maxLength) {
                return `must be at most ${field.maxLength} characters`;
            }
            return field.format ? formatProblem(field.format, value) : undefined;
    }
}

function formatProblem(format: 'email' | 'uri' | 'date' | 'date-time', value: string): string | undefined {
    switch (format) {
        case 'email': return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? undefined : 'must be an email address';
        case 'uri': return URL.canParse(value) ? undefined : 'must be a URL';
        case 'date': return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)) ? undefined : 'must be a date (YYYY-MM-DD)';
        case 'date-time': return !Number.isNaN(Date.parse(value)) && /^\d{4}-\d{2}-\d{2}T/.test(value) ? undefined : 'must be a date and time';
    }
}

/** A tool call running on one server: a question it asks is shown in its chat (see McpServerFeatures.askingCall). */
export interface RunningCall {
    chatId: string;
    requestId: string;
    signal?: AbortSignal;
}

/**
 * Answers one `elicitation/create` request of `server`: builds the form (or the page to open),
 * asks through `prompt` in the chat of the running call, and returns exactly the form's fields
 * the user filled in. Without a prompt, or with a schema the spec does not allow, the answer is
 * decline; when the turn waiting on it is stopped or the server withdraws it, cancel.
 */
export async function answerElicitation(
    server: string, params: ElicitRequest['params'], prompt: McpElicitationPrompt | undefined, call: RunningCall | undefined, serverSignal: AbortSignal
): Promise<ElicitResult> {
    if (!prompt) {
        return { action: 'decline' };
    }
    const where = call ? { chatId: call.chatId, requestId: call.requestId } : {};
    let request: McpElicitationRequest;
    if (params.mode === 'url') {
        const url = URL.canParse(params.url) ? new URL(params.url) : undefined;
        if (url?.protocol !== 'https:' && url?.protocol !== 'http:') {
            return { action: 'decline' }; // Only a web page is offered to open.
        }
        request = { server, message: params.message, mode: 'url', url: url.href, origin: url.origin, elicitationId: params.elicitationId, ...where };
    } else {
        let fields: McpFormField[];
        try {
            fields = formFields((params as FormParams).requestedSchema);
        } catch {
            return { action: 'decline' };
        }
        request = { server, message: params.message, mode: 'form', fields, ...where };
    }
    const stop = new AbortController();
    const abort = () => stop.abort();
    serverSignal.addEventListener('abort', abort, { once: true });
    call?.signal?.addEventListener('abort', abort, { once: true });
    try {
        if (serverSignal.aborted || call?.signal?.aborted) {
            return { action: 'cancel' };
        }
        const answer = await untilAborted(prompt.ask(request, stop.signal), stop.signal);
        if (answer.action !== 'accept') {
            return { action: answer.action };
        }
        if (request.mode === 'url') {
            return { action: 'accept' };
        }
        const content = Object.fromEntries(request.fields.filter(field => answer.content?.[field.name] !== undefined && answer.content[field.name] !== '').map(field => [field.name, answer.content![field.name]]));
        // The view validates as the user types; an answer that still does not fit is not sent as given.
        return formProblem(request.fields, content) ? { action: 'decline' } : { action: 'accept', content };
    } catch {
        return { action: 'cancel' };
    } finally {
        serverSignal.removeEventListener('abort', abort);
        call?.signal?.removeEventListener('abort', abort);
        stop.abort();
    }
}
