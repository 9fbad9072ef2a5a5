import type { ContentBlock, SessionUpdate, ToolCall, ToolCallContent, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { createTwoFilesPatch } from 'diff';
import { isAbsolute, relative } from 'node:path';
import { RequestId } from '../wire/events';
import { capHead } from '../tools/output-cap';
import { AcpContent, AcpToolCallState, AcpToolContent, AcpToolKind, AcpUpdateEvent } from './acp-events';

/** Diffs larger than this (either side) are shown as their texts only: a patch of megabytes helps nobody and costs O(N·D). */
const MAX_PATCH_INPUT_CHARS = 256 * 1024;
/** The most characters of a finished tool call's output handed on as its ToolResult text. */
const MAX_RESULT_CHARS = 20_000;

const TOOL_KINDS: ReadonlySet<string> = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);

/** ACP content as the chat's plain data. */
export function contentOf(block: ContentBlock): AcpContent {
    switch (block.type) {
        case 'text':
            return { type: 'text', text: block.text };
        case 'image':
            return { type: 'image', mimeType: block.mimeType, data: block.data, ...(block.uri ? { uri: block.uri } : {}) };
        case 'audio':
            return { type: 'audio', mimeType: block.mimeType };
        case 'resource_link':
            return { type: 'resource', uri: block.uri, name: block.title ?? block.name, ...(block.mimeType ? { mimeType: block.mimeType } : {}) };
        case 'resource': {
            const resource = block.resource;
            return { type: 'resource', uri: resource.uri, ...(resource.mimeType ? { mimeType: resource.mimeType } : {}), ...('text' in resource ? { text: resource.text } : {}) };
        }
        default:
            return { type: 'text', text: '' };
    }
}

export interface AcpUpdateMapperOptions {
    /** Tool calls remembered for their updates; the oldest are forgotten past it. */
    maxTrackedToolCalls: number;
    /** Roots that diff paths are shown relative to. */
    roots?: readonly string[];
}

interface Tracked {
    state: AcpToolCallState;
    /** Its ToolResult was emitted (it completed or failed). */
    ended: boolean;
}

/**
 * Turns one session's `session/update` notifications into typed chat events, keeping each
 * tool call's state so an update (which carries only what changed) yields the whole call.
 */
export class AcpUpdateMapper {
    private readonly calls = new Map<string, Tracked>();

    constructor(private readonly options: AcpUpdateMapperOptions) { }

    map(update: SessionUpdate, requestId: RequestId): AcpUpdateEvent[] {
        switch (update.sessionUpdate) {
            case 'agent_message_chunk':
                return update.content.type === 'text'
                    ? [{ type: 'TextDelta', requestId, text: update.content.text }]
                    : [{ type: 'AcpContent', requestId, role: 'agent', content: contentOf(update.content) }];
            case 'agent_thought_chunk':
                return update.content.type === 'text'
                    ? [{ type: 'ThinkingDelta', requestId, text: update.content.text }]
                    : [{ type: 'AcpContent', requestId, role: 'thought', content: contentOf(update.content) }];
            case 'user_message_chunk':
                return [{ type: 'AcpUserMessage', requestId, content: contentOf(update.content) }];
            case 'tool_call':
                return this.toolCall(update, requestId);
            case 'tool_call_update':
                return this.toolCallUpdate(update, requestId);
            case 'plan':
                return [{ type: 'AcpPlan', requestId, entries: update.entries.map(entry => ({ content: entry.content, priority: entry.priority, status: entry.status })) }];
            case 'available_commands_update':
                return [{
                    type: 'AcpCommands', requestId,
                    commands: update.availableCommands.map(command => ({ name: command.name, description: command.description, ...(command.input?.hint ? { hint: command.input.hint } : {}) }))
                }];
            case 'current_mode_update':
                return [{ type: 'AcpMode', requestId, currentModeId: update.currentModeId }];
            case 'usage_update':
                return [{ type: 'AcpUsage', requestId, used: update.used, size: update.size, ...(update.cost ? { cost: { amount: update.cost.amount, currency: update.cost.currency } } : {}) }];
            case 'notice':
                return [{ type: 'AcpNotice', requestId, severity: update.severity, title: update.title, ...(update.description ? { description: update.description } : {}) }];
            default:
                // Session titles, config options and compaction have no place in the chat yet.
                return [];
        }
    }

    /** The state a tool call would have with this update applied, without keeping it (a permission request shows it). */
    preview(update: ToolCallUpdate): AcpToolCallState {
        return this.merged(this.calls.get(update.toolCallId)?.state, update);
    }

    /** The remembered state of a tool call. */
    state(callId: string): AcpToolCallState | undefined {
        return this.calls.get(callId)?.state;
    }

    private toolCall(call: ToolCall, requestId: RequestId): AcpUpdateEvent[] {
        const state = this.merged(undefined, call);
        const tracked = this.track(state);
        return [
            { type: 'ToolCallStart', requestId, callId: state.callId, name: state.title },
            { type: 'AcpToolCall', requestId, call: state, first: true },
            ...this.endIfDone(tracked, requestId)
        ];
    }

    private toolCallUpdate(update: ToolCallUpdate, requestId: RequestId): AcpUpdateEvent[] {
        const known = this.calls.get(update.toolCallId);
        if (!known) {
            // An update for a call never announced (or long forgotten): show it as a new one.
            return this.toolCall({ ...update, title: update.title ?? 'Tool call' } as ToolCall, requestId);
        }
        known.state = this.merged(known.state, update);
        return [{ type: 'AcpToolCall', requestId, call: known.state, first: false }, ...this.endIfDone(known, requestId)];
    }

    private track(state: AcpToolCallState): Tracked {
        this.calls.delete(state.callId);
        const tracked = { state, ended: false };
        this.calls.set(state.callId, tracked);
        while (this.calls.size > this.options.maxTrackedToolCalls) {
            this.calls.delete(this.calls.keys().next().value!);
        }
        return tracked;
    }

    /** A ToolResult once, when the call completes or fails. */
    private endIfDone(tracked: Tracked, requestId: RequestId): AcpUpdateEvent[] {
        const { state } = tracked;
        if (tracked.ended || (state.status !== 'completed' && state.status !== 'failed')) {
            return [];
        }
        tracked.ended = true;
        return [{ type: 'ToolResult', requestId, callId: state.callId, name: state.title, content: resultText(state), isError: state.status === 'failed' }];
    }

    private merged(previous: AcpToolCallState | undefined, update: ToolCallUpdate | ToolCall): AcpToolCallState {
        const kind = update.kind && TOOL_KINDS.has(update.kind) ? update.kind as AcpToolKind : previous?.kind ?? 'other';
        return {
            callId: update.toolCallId,
            title: update.title ?? previous?.title ?? 'Tool call',
            kind,
            status: update.status ?? previous?.status ?? 'pending',
            locations: update.locations ? update.locations.map(place => ({ path: place.path, ...(typeof place.line === 'number' ? { line: place.line } : {}) })) : previous?.locations ?? [],
            content: update.content ? update.content.map(item => this.toolContent(item)) : previous?.content ?? [],
            ...(update.rawInput !== undefined ? { rawInput: update.rawInput } : previous?.rawInput !== undefined ? { rawInput: previous.rawInput } : {}),
            ...(update.rawOutput !== undefined ? { rawOutput: update.rawOutput } : previous?.rawOutput !== undefined ? { rawOutput: previous.rawOutput } : {})
        };
    }

    private toolContent(item: ToolCallContent): AcpToolContent {
        if (item.type === 'diff') {
            const oldText = item.oldText ?? undefined;
            return { type: 'diff', path: item.path, ...(oldText !== undefined ? { oldText } : {}), newText: item.newText, ...this.patchOf(item.path, oldText, item.newText) };
        }
        if (item.type === 'terminal') {
            return { type: 'terminal', terminalId: item.terminalId };
        }
        return { type: 'content', content: contentOf(item.content) };
    }

    private patchOf(path: string, oldText: string | undefined, newText: string): { patch?: string } {
        if ((oldText?.length ?? 0) > MAX_PATCH_INPUT_CHARS || newText.length > MAX_PATCH_INPUT_CHARS) {
            return {};
        }
        const shown = this.displayPath(path);
        const patch = createTwoFilesPatch(oldText === undefined ? '/dev/null' : `a/${shown}`, `b/${shown}`, oldText ?? '', newText, undefined, undefined, { context: 3 });
        return { patch: patch.replace(/^=+\n/, '') };
    }

    private displayPath(path: string): string {
        for (const root of this.options.roots ?? []) {
            const inside = relative(root, path);
            if (inside && !inside.startsWith('..') && !isAbsolute(inside)) {
                return inside.split('\\').join('/');
            }
        }
        return path;
    }
}

/** A finished tool call as text: its text output, what it edited, or its raw output. */
function resultText(state: AcpToolCallState): string {
    const parts = state.content.map(item => {
        if (item.type === 'diff') {
            return `${item.oldText === undefined ? 'Created' : 'Edited'} ${item.path}`;
        }
        if (item.type === 'terminal') {
            return `[terminal ${item.terminalId}]`;
        }
        const content = item.content;
        return content.type === 'text' ? content.text : content.type === 'resource' ? content.text ?? content.uri : `[${content.type}]`;
    });
    if (parts.length === 0 && state.rawOutput !== undefined) {
        parts.push(typeof state.rawOutput === 'string' ? state.rawOutput : JSON.stringify(state.rawOutput));
    }
    return capHead(parts.join('\n'), MAX_RESULT_CHARS, 'the whole output is in the tool call');
}
