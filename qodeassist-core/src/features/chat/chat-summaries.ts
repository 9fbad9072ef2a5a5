import { ContextManifest } from '../../context/context-manifest';
import { QodeAssistError } from '../../wire/error-info';
import { ChatSummaryContext, compressionDue, summarizeChat, SummaryRuns } from './chat-summary';
import { ChatInput, ChatTurnOptions, OpenedChat } from './chat-types';
import { ChatViewer, OpenChat } from './open-chat';

/** What summarizing needs of the window it is asked in. */
export interface SummaryWindow {
    viewer: ChatViewer;
    chatFor(chatId: string): OpenChat;
    /** What the next send would measure (auto-compression decides on it). */
    estimate(chatId: string, input: ChatInput, options: ChatTurnOptions): Promise<ContextManifest | undefined>;
    /** Shows the summary in this window in place of the chat it summarizes (which is closed here). */
    replace(chat: OpenChat, summary: OpenChat): Promise<void>;
}

/**
 * One window's summaries: a chat summarized on request or before a send that would fill it
 * (auto-compression), each stoppable until it is saved; the original chat is always kept.
 */
export class ChatSummaries {
    private readonly runs = new SummaryRuns();

    constructor(private readonly context: ChatSummaryContext, private readonly window: SummaryWindow) { }

    /**
     * Summarizes the chat through the compression roster into a new chat linked to this one; the
     * original is kept. Stopped (stop) or failed, it leaves the chat as it was and writes nothing.
     */
    summarize(chatId: string, options: ChatTurnOptions): Promise<OpenedChat> {
        return this.runs.run(chatId, signal => this.summarizeInto(this.window.chatFor(chatId), options, { signal }));
    }

    /**
     * Auto-compression: before a send that would fill more than `percent` of the agent's budget, the
     * chat is summarized into a new one that keeps its recent turns; undefined when the send fits. Stoppable like summarize.
     */
    async compressIfFull(chatId: string, input: ChatInput, options: ChatTurnOptions, percent: number): Promise<OpenedChat | undefined> {
        if (!(percent > 0)) {
            return undefined;
        }
        return this.runs.run(chatId, async signal => {
            const due = compressionDue(await this.window.estimate(chatId, input, options), percent);
            return due && this.summarizeInto(this.window.chatFor(chatId), options, { signal, ...due });
        });
    }

    /** Stops this window's summary of the chat, if one is being made: the chat stays as it was. */
    stop(chatId: string): void {
        this.runs.stop(chatId);
    }

    stopAll(): void {
        this.runs.stopAll();
    }

    /** The summary replaces the chat in this window; the original stays saved. */
    private async summarizeInto(chat: OpenChat, options: ChatTurnOptions, run: { signal: AbortSignal; keepRecentTokens?: number }): Promise<OpenedChat> {
        if (chat.live && chat.sender !== this.window.viewer) {
            // Never at the cost of an answer another window is waiting for.
            throw new QodeAssistError({ category: 'Validation', message: 'An answer another window asked for is being written in this chat; summarize once it has ended.' });
        }
        chat.agentLink?.cancel();
        await chat.session?.cancel();
        await chat.saving;
        const { summary, stored } = await summarizeChat(this.context, chat, options, run);
        await this.window.replace(chat, summary);
        return { chatId: summary.id, chat: stored };
    }
}
