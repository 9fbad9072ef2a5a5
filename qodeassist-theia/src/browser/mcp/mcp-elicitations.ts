import { Emitter, Event } from '@theia/core';
import { injectable } from '@theia/core/shared/inversify';
import type { McpElicitationAnswer, McpElicitationRequest, McpFormField, McpFormValue, QodeAssistMcpFeaturesClient } from '../../common/mcp-features-protocol';

/** A server's question waiting for the user: what the form holds so far, and why Accept did not go yet. */
export interface PendingElicitation {
    id: string;
    request: McpElicitationRequest;
    /** What the user typed, as typed (strings), checkboxes as booleans, multiple choices as lists. */
    raw: Record<string, string | boolean | string[]>;
    problem?: string;
    resolve(answer: McpElicitationAnswer): void;
}

/**
 * The servers' questions this window shows, for the chat views: a question goes to the view of
 * its chat; one of no chat, or of a chat no view shows now, to every chat view (the first answer
 * counts). Nothing is ever filled in except a server's default for a field that does not read like a credential.
 */
@injectable()
export class McpElicitations implements QodeAssistMcpFeaturesClient {
    private pendingList: PendingElicitation[] = [];
    /** The chat each view shows, by view. */
    private readonly shown = new Map<object, string | undefined>();
    private readonly onDidChangeEmitter = new Emitter<void>();
    readonly onDidChange: Event<void> = this.onDidChangeEmitter.event;

    /** Checks the values before they go (the backend's check, so form and hub agree); set by the contribution once the service is bound. */
    check: (fields: McpFormField[], values: Record<string, McpFormValue>) => Promise<string | undefined> = async () => undefined;

    requestMcpElicitation(id: string, request: McpElicitationRequest): Promise<McpElicitationAnswer> {
        return new Promise(resolve => {
            const raw = request.mode === 'form' ? Object.fromEntries(request.fields.flatMap(field => initialRaw(field))) : {};
            this.pendingList = [...this.pendingList, { id, request, raw, resolve }];
            this.onDidChangeEmitter.fire();
        });
    }

    withdrawMcpElicitation(id: string): void {
        this.settle(id, { action: 'cancel' });
    }

    /** A view shows `chatId` now (undefined: it is gone or shows no chat). */
    showing(view: object, chatId: string | undefined): void {
        if (chatId === undefined) {
            this.shown.delete(view);
        } else {
            this.shown.set(view, chatId);
        }
    }

    /** The questions a view of `chatId` shows. */
    forChat(chatId: string | undefined): readonly PendingElicitation[] {
        const shownChats = new Set(this.shown.values());
        return this.pendingList.filter(pending => pending.request.chatId === undefined || pending.request.chatId === chatId || !shownChats.has(pending.request.chatId));
    }

    setRaw(id: string, name: string, value: string | boolean | string[]): void {
        const pending = this.pendingList.find(candidate => candidate.id === id);
        if (pending) {
            pending.raw = { ...pending.raw, [name]: value };
            pending.problem = undefined;
            this.onDidChangeEmitter.fire();
        }
    }

    /** Accept: a form's values are checked first; a problem stays in the form, naming the field. */
    async accept(id: string): Promise<void> {
        const pending = this.pendingList.find(candidate => candidate.id === id);
        if (!pending) {
            return;
        }
        if (pending.request.mode === 'url') {
            this.settle(id, { action: 'accept' });
            return;
        }
        const content = formValues(pending.request.fields, pending.raw);
        const problem = await this.check(pending.request.fields, content);
        if (problem) {
            pending.problem = problem;
            this.onDidChangeEmitter.fire();
            return;
        }
        this.settle(id, { action: 'accept', content });
    }

    decline(id: string): void {
        this.settle(id, { action: 'decline' });
    }

    cancel(id: string): void {
        this.settle(id, { action: 'cancel' });
    }

    private settle(id: string, answer: McpElicitationAnswer): void {
        const pending = this.pendingList.find(candidate => candidate.id === id);
        if (pending) {
            this.pendingList = this.pendingList.filter(candidate => candidate !== pending);
            pending.resolve(answer);
            this.onDidChangeEmitter.fire();
        }
    }
}

/** What a field holds when the form opens: the server's default (never one for a credential-named field, which has none). */
function initialRaw(field: McpFormField): Array<[string, string | boolean | string[]]> {
    if (field.secretLike || field.default === undefined) {
        return field.kind === 'boolean' ? [[field.name, false]] : [];
    }
    return [[field.name, typeof field.default === 'number' ? String(field.default) : field.default]];
}

/**
 * The typed values of a form from what was typed: numbers parsed, empty fields left out (the
 * check says whether they were required). A number that does not parse stays text, so the check names it.
 */
export function formValues(fields: McpFormField[], raw: Record<string, string | boolean | string[]>): Record<string, McpFormValue> {
    const values: Record<string, McpFormValue> = {};
    for (const field of fields) {
        const value = raw[field.name];
        if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0 && field.kind !== 'multi-enum')) {
            continue;
        }
        if (field.kind === 'number' && typeof value === 'string') {
            const parsed = Number(value.trim());
            values[field.name] = value.trim() !== '' && Number.isFinite(parsed) ? parsed : value;
        } else {
            values[field.name] = value;
        }
    }
    return values;
}
