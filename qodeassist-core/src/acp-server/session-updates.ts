import type { SessionUpdate, StopReason as AcpStopReason, ToolCallContent } from '@agentclientprotocol/sdk';
import { FileEditRecord, StopReason } from '../wire/events';
import { redactKnownValues } from '../wire/redaction';
import { ChatEvent } from '../features/chat/chat-types';
import { planOfTodoList, toolCallView } from './tool-call-view';

/** A file edit whose diff the session still has to read (old and new text) before the result can be told. */
export interface PendingEdit {
    toolCallId: string;
    edit: FileEditRecord;
    /** The result as the model read it, shown when the diff cannot be rebuilt. */
    content: string;
}

/** What one batch of chat events becomes: the updates in order, with the edits to complete at their place. */
export type MappedUpdate = { update: SessionUpdate } | { edit: PendingEdit };

/** The ACP stop reason of a turn that finished: a filtered answer is a refusal, a cut one hit max_tokens. */
export function acpStopReason(reason: StopReason): AcpStopReason {
    switch (reason) {
        case 'max_tokens': return 'max_tokens';
        case 'content_filter': return 'refusal';
        default: return 'end_turn';
    }
}

/** Tool output shown to the client: known keys removed (the model may have read a file that holds one). */
function shown(text: string): string {
    return redactKnownValues(text);
}

/**
 * Turns the chat's events of one ACP session into `session/update`s: text and thinking as chunks
 * (consecutive deltas of a batch joined), each tool call as `tool_call` then `tool_call_update`s
 * with kind, title, locations, raw input and output, the todo list as a plan, and the context
 * use as `usage_update`. Provider call ids may repeat across rounds (Ollama's `call_0`), so each
 * call gets an id unique in the session.
 */
export class SessionUpdateMapper {
    private readonly ids = new Map<string, string>();
    private readonly used = new Set<string>();
    private readonly calls = new Map<string, { name: string; args: Record<string, unknown>; done: boolean }>();
    /** The client terminal a command ran in, kept in its call's content after the result. */
    private readonly terminals = new Map<string, string>();
    private contextLimit: number | undefined;

    constructor(private readonly cwd: string) { }

    /** The session's id of a provider call id (the latest call with it). */
    toolCallId(callId: string): string | undefined {
        return this.ids.get(callId);
    }

    /** The id of the newest unfinished call of this tool with exactly these arguments: the one a permission question or a terminal is about. */
    pendingCallFor(name: string, args: Record<string, unknown>): string | undefined {
        const wanted = JSON.stringify(args);
        const found = [...this.calls.entries()].reverse().find(([, call]) => !call.done && call.name === name && JSON.stringify(call.args) === wanted);
        return found?.[0];
    }

    /** The arguments of a call, for the permission question's title and diff. */
    argumentsOf(toolCallId: string): Record<string, unknown> | undefined {
        return this.calls.get(toolCallId)?.args;
    }

    map(events: readonly ChatEvent[]): MappedUpdate[] {
        const out: MappedUpdate[] = [];
        for (const event of events) {
            const last = out.at(-1);
            switch (event.type) {
                case 'TextDelta':
                case 'ThinkingDelta': {
                    const kind = event.type === 'TextDelta' ? 'agent_message_chunk' : 'agent_thought_chunk';
                    if (last && 'update' in last && last.update.sessionUpdate === kind && last.update.content.type === 'text') {
                        last.update.content.text += shown(event.text);
                    } else if (event.text) {
                        out.push({ update: { sessionUpdate: kind, content: { type: 'text', text: shown(event.text) } } });
                    }
                    break;
                }
                case 'ToolCallStart':
                    out.push({ update: this.start(event.callId, event.name) });
                    break;
                case 'ToolCallEnd': {
                    if (!this.ids.has(event.callId) || this.calls.get(this.ids.get(event.callId)!)?.done) {
                        out.push({ update: this.start(event.callId, event.name) });
                    }
                    const toolCallId = this.ids.get(event.callId)!;
                    this.calls.set(toolCallId, { name: event.name, args: event.arguments, done: false });
                    const view = toolCallView(event.name, event.arguments, this.cwd);
                    out.push({ update: { sessionUpdate: 'tool_call_update', toolCallId, ...view, rawInput: event.arguments } });
                    break;
                }
                case 'ToolResult': {
                    const toolCallId = this.ids.get(event.callId) ?? this.newId(event.callId);
                    const call = this.calls.get(toolCallId);
                    if (call) {
                        call.done = true;
                    }
                    if (event.fileEdit && !event.isError) {
                        out.push({ edit: { toolCallId, edit: event.fileEdit, content: event.content } });
                    } else {
                        out.push({ update: this.result(toolCallId, event.content, event.isError) });
                    }
                    const plan = event.name === 'todo' && !event.isError ? planOfTodoList(event.content) : undefined;
                    if (plan) {
                        out.push({ update: { sessionUpdate: 'plan', entries: plan } });
                    }
                    break;
                }
                case 'Manifest':
                    this.contextLimit = event.manifest.limit;
                    out.push({ update: { sessionUpdate: 'usage_update', used: event.manifest.estimate, size: event.manifest.limit } });
                    break;
                case 'Usage':
                    if (this.contextLimit) {
                        out.push({ update: { sessionUpdate: 'usage_update', used: event.inputTokens + event.outputTokens, size: this.contextLimit } });
                    }
                    break;
                case 'Failed':
                case 'Cancelled':
                    // Calls the turn never finished end with it.
                    for (const [toolCallId, call] of this.calls) {
                        if (!call.done) {
                            call.done = true;
                            out.push({ update: { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' } });
                        }
                    }
                    break;
                default:
                    break;
            }
        }
        return out;
    }

    /** The update that shows a client terminal in a call's view while its command runs. */
    attachTerminal(toolCallId: string, terminalId: string): SessionUpdate {
        this.terminals.set(toolCallId, terminalId);
        return { sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress', content: [{ type: 'terminal', terminalId }] };
    }

    /**
     * A finished call's update: its output as text, completed or failed. A command that ran in a
     * client terminal keeps the terminal as its content (the client shows its output; the
     * terminal is released by then, so it is not named again) and carries the text as raw output.
     * `after`: content that follows the text (the images the tool returned).
     */
    result(toolCallId: string, content: string, isError: boolean, extra: ToolCallContent[] = [], after: ToolCallContent[] = []): SessionUpdate {
        const status = isError ? 'failed' : 'completed';
        const rawOutput = { content: shown(content), isError };
        if (this.terminals.delete(toolCallId)) {
            return { sessionUpdate: 'tool_call_update', toolCallId, status, rawOutput };
        }
        return { sessionUpdate: 'tool_call_update', toolCallId, status, content: [...extra, { type: 'content', content: { type: 'text', text: shown(content) } }, ...after], rawOutput };
    }

    private start(callId: string, name: string): SessionUpdate {
        const toolCallId = this.newId(callId);
        this.calls.set(toolCallId, { name, args: {}, done: false });
        const view = toolCallView(name, {}, this.cwd);
        return { sessionUpdate: 'tool_call', toolCallId, ...view, status: 'pending', rawInput: {} };
    }

    private newId(callId: string): string {
        let id = callId || 'call';
        for (let n = 2; this.used.has(id); n++) {
            id = `${callId || 'call'}#${n}`;
        }
        this.used.add(id);
        this.ids.set(callId, id);
        return id;
    }
}
