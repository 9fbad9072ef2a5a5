import type { McpOffer } from './chat-mcp-offers';

export type PromptOffer = Extract<McpOffer, { kind: 'prompt' }>;
export type PromptArgument = PromptOffer['arguments'][number];

/** A `/mcp.<server>.<prompt>` at the start of the draft, its `name=value` arguments as typed, and the text after them. */
export interface TypedPrompt {
    /** `mcp.<server>.<prompt>`, without the slash (the key `ChatMcpOffers.offerFor` takes). */
    command: string;
    values: Record<string, string>;
    /** What follows the arguments: the user's own words, kept after the prompt's text. */
    rest: string;
}

/** A typed prompt command that cannot run as written; the message says what to change. */
export class PromptCommandError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'PromptCommandError';
    }
}

const NAME = /^[A-Za-z_][\w.-]*$/;

/**
 * Reads `/mcp.srv.prompt a=1 b="two words" "c=three words"` at the start of the draft. Arguments
 * are the `name=value` words right after the command (a value or a whole word may be quoted,
 * `\"` inside quotes is a quote); the first word that is not one ends them and starts `rest`.
 * Undefined when the draft does not start with an MCP prompt command.
 */
export function typedPrompt(draft: string): TypedPrompt | undefined {
    const head = /^\s*\/(mcp\.[^\s=]+)/.exec(draft);
    if (!head) {
        return undefined;
    }
    // Own properties only (fromEntries): a typed `__proto__=x` is a name like any other, then named as unknown.
    const values = new Map<string, string>();
    let at = head[0].length;
    for (;;) {
        const gap = /^[ \t]*/.exec(draft.slice(at))![0].length;
        const word = readWord(draft, at + gap);
        if (!word) {
            return { command: head[1], values: Object.fromEntries(values), rest: draft.slice(at).replace(/^[ \t]*\n?/, '') };
        }
        values.set(word.name, word.value);
        at = word.end;
    }
}

/** One `name=value` (or `"name=value"`) word starting at `start`, or undefined when the text there is not one. */
function readWord(text: string, start: number): { name: string; value: string; end: number } | undefined {
    if (text[start] === '"') {
        const quoted = readQuoted(text, start);
        const split = quoted.text.indexOf('=');
        const name = quoted.text.slice(0, split);
        return split > 0 && NAME.test(name) && boundary(text, quoted.end) ? { name, value: quoted.text.slice(split + 1), end: quoted.end } : undefined;
    }
    const assignment = /^([A-Za-z_][\w.-]*)=/.exec(text.slice(start));
    if (!assignment) {
        return undefined;
    }
    const valueStart = start + assignment[0].length;
    if (text[valueStart] === '"') {
        const quoted = readQuoted(text, valueStart);
        return boundary(text, quoted.end) ? { name: assignment[1], value: quoted.text, end: quoted.end } : undefined;
    }
    const value = /^\S*/.exec(text.slice(valueStart))![0];
    return { name: assignment[1], value, end: valueStart + value.length };
}

function readQuoted(text: string, open: number): { text: string; end: number } {
    let value = '';
    for (let at = open + 1; at < text.length; at++) {
        if (text[at] === '\\' && (text[at + 1] === '"' || text[at + 1] === '\\')) {
            value += text[++at];
        } else if (text[at] === '"') {
            return { text: value, end: at + 1 };
        } else {
            value += text[at];
        }
    }
    throw new PromptCommandError(`A quote opened at "${text.slice(open, open + 20)}" is not closed; close it with ", or write \\" for a quote inside it.`);
}

/** A word ends at whitespace or the end of the text (`a="x"y` is not an argument). */
function boundary(text: string, at: number): boolean {
    return at >= text.length || /\s/.test(text[at]);
}

/** An argument's value, '' when it has none: own properties only (an argument may be named like `__proto__`). */
export function valueOf(values: Record<string, string>, name: string): string {
    return Object.hasOwn(values, name) ? values[name] : '';
}

/** The typed values, checked against the prompt's arguments: an unknown name is an error naming the ones it takes. */
export function knownValues(offer: PromptOffer, command: string, values: Record<string, string>): Record<string, string> {
    const names = offer.arguments.map(argument => argument.name);
    const unknown = Object.keys(values).find(name => !names.includes(name));
    if (unknown !== undefined) {
        throw new PromptCommandError(names.length > 0
            ? `/${command} has no argument "${unknown}"; it takes ${names.join(', ')}.`
            : `/${command} takes no arguments; remove "${unknown}=…".`);
    }
    return values;
}

/** The prompt's first required argument left empty, as a sentence naming it; undefined when it may run. */
export function missingArgument(offer: PromptOffer, command: string, values: Record<string, string>): string | undefined {
    const missing = offer.arguments.find(argument => argument.required && !(valueOf(values, argument.name)).trim());
    return missing && `"${missing.name}" is required by /${command}: fill it in, or press Escape to cancel.`;
}

/** What goes to the server: the values filled in (an optional argument left empty is not sent). */
export function sentValues(values: Record<string, string>): Record<string, string> {
    return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ''));
}

/** The argument form of one prompt, shown in the composer until it runs or is cancelled. */
export interface PromptForm {
    offer: PromptOffer;
    command: string;
    values: Record<string, string>;
    /** The field that has (or gets) the focus. */
    field: number;
    /** Why it did not run (a required argument left empty, or the server's error). */
    problem?: string;
    /** Set while the server is asked: Enter does nothing more. */
    running?: boolean;
    /** What the server suggests for one argument as typed so far (`completion/complete`). */
    completions?: { argument: string; values: string[] };
}

export function openForm(offer: PromptOffer, command: string, values: Record<string, string> = {}): PromptForm {
    const problem = missingArgument(offer, command, values);
    const first = offer.arguments.findIndex(argument => argument.required && !(valueOf(values, argument.name)).trim());
    return { offer, command, values, field: Math.max(0, first), ...(Object.keys(values).length > 0 && problem ? { problem } : {}) };
}

/** The form with one argument changed; a problem the change settles goes away. */
export function withValue(form: PromptForm, name: string, value: string): PromptForm {
    const values = { ...form.values, [name]: value };
    const field = form.offer.arguments.findIndex(argument => argument.name === name);
    return { ...form, values, field: field >= 0 ? field : form.field, problem: form.problem && missingArgument(form.offer, form.command, values) };
}

/** Tab (1) and Shift+Tab (-1): the next or previous field, around the ends, so the focus stays in the form. */
export function moveField(form: PromptForm, step: 1 | -1): PromptForm {
    const count = form.offer.arguments.length;
    return count === 0 ? form : { ...form, field: (form.field + step + count) % count };
}

/** The draft once the prompt ran: its text, then the user's own words that followed the command. */
export function draftAfterPrompt(promptText: string, rest: string): string {
    return rest.trim() ? `${promptText}\n\n${rest}` : promptText;
}
