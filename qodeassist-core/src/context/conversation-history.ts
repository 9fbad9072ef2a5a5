import { AssistantBlock } from '../wire/assistant-turn';
import { UsageCost } from '../config/pricing';
import { ErrorInfo } from '../wire/error-info';
import { ToolImageType, ToolResultImage } from '../wire/tool-result-images';
import type { AcpPlanEntry, AcpToolCallState } from './agent-activity';

/** Stored content (attachment or image) is kept by reference; the ContentLoader materializes it per send. */
export interface ContentRef {
    /** Absolute path of the stored copy. */
    path: string;
    /** The name the user knows it by. */
    name: string;
    mediaType: string;
}

/**
 * A tool result's image as a chat keeps it: its bytes while the answer is fresh, a file of the chat's
 * own (`ref`, named by a hash of its bytes) once the chat was saved, or — in a view's copy of the
 * history — only its type and size (`bytes`): image bytes never travel to a view with the history.
 */
export type ToolImage = ToolResultImage | StoredToolImage | ToolImageSummary;
export interface StoredToolImage { mediaType: ToolImageType; bytes: number; ref: ContentRef }
export interface ToolImageSummary { mediaType: string; bytes: number }

/** The stored files a block refers to: an attachment, an image, a tool result's saved images. */
export function contentRefsOf(block: HistoryBlock): ContentRef[] {
    if (block.type === 'image' || block.type === 'attachment') {
        return [block.ref];
    }
    return block.type === 'tool_result' ? (block.images ?? []).flatMap(image => 'ref' in image ? [image.ref] : []) : [];
}

/** The block with each stored file it refers to mapped (a copy moved to another chat's folder). */
export function mapContentRefs(block: HistoryBlock, map: (ref: ContentRef) => ContentRef): HistoryBlock {
    if (block.type === 'image' || block.type === 'attachment') {
        return { ...block, ref: map(block.ref) };
    }
    if (block.type === 'tool_result' && block.images?.some(image => 'ref' in image)) {
        return { ...block, images: block.images.map(image => 'ref' in image ? { ...image, ref: map(image.ref) } : image) };
    }
    return block;
}

/** The typed blocks of the conversation: the single source of truth every view is a projection of. */
export type HistoryBlock =
    | { type: 'text'; text: string }
    | { type: 'thinking'; text: string; signature?: string }
    | { type: 'redacted_thinking'; data: string }
    | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
    /** `images`: what the tool returned besides its text (which describes them), sent to agents that take images. */
    | { type: 'tool_result'; toolUseId: string; name: string; content: string; isError: boolean; images?: ToolImage[] }
    | { type: 'image'; ref: ContentRef }
    | { type: 'attachment'; ref: ContentRef }
    /** A file written for the chat; `editId` names its record in the chat's edits (an external agent's writes, which Undo reverts). */
    | { type: 'file_edit'; path: string; summary: string; editId?: string }
    | { type: 'skill_invocation'; name: string; body: string }
    | { type: 'completion'; prefix: string; suffix: string }
    /** A tool call an external (ACP) agent ran itself, as it last described it: shown, never sent back as a tool call. */
    | { type: 'agent_tool_call'; agent: string; call: AcpToolCallState }
    /** An external agent's plan as the turn ended. */
    | { type: 'agent_plan'; agent: string; entries: AcpPlanEntry[] };

/** One request's usage as the provider reported it (input includes the cached part), recorded on the answer it produced. */
export interface MessageUsage {
    inputTokens: number;
    outputTokens: number;
    cachedTokens?: number;
    reasoningTokens?: number;
    /** What the request cost at the model's price when it was received; absent when the model has no price. */
    cost?: UsageCost;
}

export interface HistoryMessage {
    role: 'user' | 'assistant';
    blocks: HistoryBlock[];
    usage?: MessageUsage;
    /** On a summary: the id of the chat whose history it replaces (the original is kept). */
    compressedFrom?: string;
    /**
     * An answer that had not ended when it was saved: what had arrived when the IDE stopped
     * (a crash, a restart). Shown as interrupted with Retry; a finished answer replaces it.
     */
    interrupted?: boolean;
    /**
     * An answer that ended without finishing: it failed (the error the user saw) or the user
     * stopped it. Kept so the chat shows it with Retry after a reload; only its text is ever sent again.
     */
    ended?: AnswerEnding;
}

/** How an answer that did not finish ended. */
export type AnswerEnding =
    | { reason: 'failed'; error: Pick<ErrorInfo, 'category' | 'message' | 'providerDetail' | 'status'> }
    | { reason: 'cancelled' };

/** Whether the message is an answer that did not finish (interrupted, failed or stopped). */
export function isUnfinished(message: HistoryMessage): boolean {
    return message.interrupted === true || message.ended !== undefined;
}

/**
 * The history as it is sent to a model: an answer that did not finish (interrupted, failed,
 * stopped) keeps only its text — a half thinking block or tool call cannot be sent back — and
 * one with no text is left out. Every other message is sent as it is.
 */
export function sendableHistory(history: readonly HistoryMessage[]): HistoryMessage[] {
    if (!history.some(isUnfinished)) {
        return history as HistoryMessage[];
    }
    return history.flatMap(message => {
        if (!isUnfinished(message)) {
            return [message];
        }
        const blocks = message.blocks.filter(block => block.type === 'text' && block.text.trim());
        return blocks.length > 0 ? [{ role: message.role, blocks, ...message.usage ? { usage: message.usage } : {} }] : [];
    });
}

/** Whether a user message is one the user wrote (not only the results of a tool round). */
export function isUserTurn(message: HistoryMessage): boolean {
    return message.role === 'user' && message.blocks.some(block => block.type !== 'tool_result');
}

/** An assistant turn's normalized blocks as history blocks. */
export function historyBlocksOf(blocks: readonly AssistantBlock[]): HistoryBlock[] {
    return blocks.map((block): HistoryBlock => {
        switch (block.type) {
            case 'text': return { type: 'text', text: block.text };
            case 'thinking': return block.signature === undefined ? { type: 'thinking', text: block.text } : { type: 'thinking', text: block.text, signature: block.signature };
            case 'redacted_thinking': return { type: 'redacted_thinking', data: block.data };
            case 'tool_call': return { type: 'tool_use', id: block.callId, name: block.name, input: block.arguments };
        }
    });
}

/** The plain text of a message (text blocks only), e.g. for titles and summaries. */
export function messageText(message: HistoryMessage): string {
    return message.blocks.flatMap(block => block.type === 'text' ? [block.text] : []).join('');
}
