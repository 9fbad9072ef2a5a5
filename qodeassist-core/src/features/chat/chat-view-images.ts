import { HistoryBlock, HistoryMessage, ToolImage, ToolImageSummary } from '../../context/conversation-history';
import { base64Size } from '../../wire/tool-result-images';
import { mapVersions, StoredChat } from '../../session/chat-store';
import { ChatEvent, OpenedChat } from './chat-types';

/*
 * What a view gets of a tool result's images: their type and size, never their bytes (up to
 * 8 × 5 MB per result, which would go to the browser with every history it is sent). The view
 * shows how many images a call returned; the model gets the bytes from the chat's files.
 */

function summaryOf(image: ToolImage): ToolImageSummary {
    return { mediaType: image.mediaType, bytes: 'data' in image ? base64Size(image.data) : image.bytes };
}

/** The messages with each tool result's images as summaries; messages without any are the same objects. */
export function historyForView(messages: readonly HistoryMessage[]): HistoryMessage[] {
    return messages.map(message => message.blocks.some(block => block.type === 'tool_result' && block.images?.length)
        ? { ...message, blocks: message.blocks.map((block): HistoryBlock => block.type === 'tool_result' && block.images ? { ...block, images: block.images.map(summaryOf) } : block) }
        : message);
}

function chatForView(chat: StoredChat): StoredChat {
    return { ...chat, history: historyForView(chat.history), ...chat.branches ? { branches: mapVersions(chat.branches, historyForView) } : {} };
}

/** Events as a view gets them: a history or a user message without image bytes. */
export function eventsForView(events: readonly ChatEvent[]): ChatEvent[] {
    return events.map(event => event.type === 'History' ? { ...event, history: historyForView(event.history) }
        : event.type === 'UserMessage' ? { ...event, message: historyForView([event.message])[0] }
            : event);
}

/** An opened chat as a view gets it: its history, versions and running request's events without image bytes. */
export function openedForView(opened: OpenedChat): OpenedChat {
    return {
        ...opened,
        ...opened.chat ? { chat: chatForView(opened.chat) } : {},
        ...opened.live ? { live: { ...opened.live, events: eventsForView(opened.live.events) } } : {}
    };
}
