import { AssistantBlock } from '../wire/assistant-turn';

/** Stored content (attachment or image) is kept by reference; the ContentLoader materializes it per send. */
export interface ContentRef {
    /** Absolute path of the stored copy. */
    path: string;
    /** The name the user knows it by. */
    name: string;
    mediaType: string;
}

/** The typed blocks of the conversation: the single source of truth every view is a projection of. */
export type HistoryBlock =
    | { type: 'text'; text: string }
    | { type: 'thinking'; text: string; signature?: string }
    | { type: 'redacted_thinking'; data: string }
    | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
    | { type: 'tool_result'; toolUseId: string; name: string; content: string; isError: boolean }
    | { type: 'image'; ref: ContentRef }
    | { type: 'attachment'; ref: ContentRef }
    | { type: 'file_edit'; path: string; summary: string }
    | { type: 'skill_invocation'; name: string; body: string }
    | { type: 'completion'; prefix: string; suffix: string };

export interface MessageUsage {
    inputTokens: number;
    outputTokens: number;
    cachedTokens?: number;
    reasoningTokens?: number;
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
