import type { ToolCallContent } from '@agentclientprotocol/sdk';
import { HistoryMessage } from '../context/conversation-history';
import { ChatEvent } from '../features/chat/chat-types';
import { keptToolImages, ToolResultImage } from '../wire/tool-result-images';

/** A finished call whose images the client is still to get. */
export interface ToolImageResult {
    toolCallId: string;
    content: string;
    isError: boolean;
    /** The images as ACP tool call content (image content blocks), after the text. */
    images: ToolCallContent[];
}

/**
 * The images a tool returned, passed on to the ACP client as image content of the call. A result's
 * event says only how many there are (the bytes stay out of events); they are read from the chat's
 * history, where the round is recorded once its results are all in, so a result waits here until the
 * history has it (at the latest when the turn ends).
 */
export class ToolImageUpdates {
    private readonly pending: Array<{ callId: string; toolCallId: string; content: string; isError: boolean }> = [];

    /** Notes the results of a batch that came with images; `toolCallId` is the session's id of a provider call id. */
    note(events: readonly ChatEvent[], toolCallId: (callId: string) => string | undefined): void {
        for (const event of events) {
            const id = event.type === 'ToolResult' && event.imageCount ? toolCallId(event.callId) : undefined;
            if (event.type === 'ToolResult' && id) {
                this.pending.push({ callId: event.callId, toolCallId: id, content: event.content, isError: event.isError });
            }
        }
    }

    /** The noted results the history holds now, with their images (held to the tool loop's rules again); they are no longer pending. */
    take(history: readonly HistoryMessage[]): ToolImageResult[] {
        const taken: ToolImageResult[] = [];
        for (const wanted of [...this.pending]) {
            const images = imagesOf(history, wanted.callId);
            if (images) {
                this.pending.splice(this.pending.indexOf(wanted), 1);
                const kept = keptToolImages(images);
                if (kept.length > 0) {
                    taken.push({ ...wanted, images: kept.map(image => ({ type: 'content', content: { type: 'image', data: image.data, mimeType: image.mediaType } })) });
                }
            }
        }
        return taken;
    }

    /** A turn that ended without recording its last round (cancelled, failed) has nothing more to tell. */
    clear(): void {
        this.pending.length = 0;
    }
}

/** The images of the latest recorded result of this call (provider call ids repeat across rounds); undefined while it is not recorded. */
function imagesOf(history: readonly HistoryMessage[], callId: string): ToolResultImage[] | undefined {
    for (let index = history.length - 1; index >= 0; index--) {
        for (const block of history[index].blocks) {
            if (block.type === 'tool_result' && block.toolUseId === callId) {
                return (block.images ?? []).filter((image): image is ToolResultImage => 'data' in image);
            }
        }
    }
    return undefined;
}
