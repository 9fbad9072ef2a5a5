import type { ChatSendOptions, ContentRef, OpenedChat, QodeAssistChatService } from '../../common/chat-protocol';
import { reasonOf } from './chat-reconnect';

/** What a chat view's summaries need of its controller. */
export interface ChatSummarizingDeps {
    service: QodeAssistChatService;
    /** The composer's request options, and what it has attached (the estimate that decides auto-compression counts it). */
    composer: { sendOptions(): ChatSendOptions; attachmentRefs(): ContentRef[] };
    /** Summarize first when the next send would fill more than this percent of the context; 0 is off. */
    autoCompressPercent(): number;
    /** The backend chat shown, if it has one yet. */
    chat(): Promise<string> | undefined;
    hasMessages(): boolean;
    /** The summary is the chat shown from now on. */
    show(opened: OpenedChat): Promise<void>;
    /** Says something about the chat that is not a request's outcome; undefined clears it. */
    notice(message: string | undefined): void;
    update(): void;
}

/**
 * The summaries of one chat view: by the Summarize button, or before a send that would fill the
 * context (auto-compression, decided and made by the backend). While one is made the view says
 * "Summarizing…" and offers Stop; stopped or failed, the chat shown stays as it was.
 */
export class ChatSummarizing {
    active = false;
    /** The user stopped the summary being made: its end is not a failure. */
    protected stopped = false;

    constructor(protected readonly deps: ChatSummarizingDeps) { }

    /** Replaces the conversation by a summary in a new chat linked to this one; the original stays saved. */
    async summarize(): Promise<void> {
        const { service, composer } = this.deps;
        if (!this.deps.chat() || this.active || !this.deps.hasMessages()) {
            return;
        }
        try {
            await this.run(chatId => service.summarize(chatId, composer.sendOptions()));
        } catch (error) {
            this.deps.notice(`Summarizing failed: ${reasonOf(error)}`);
            this.deps.update();
        }
    }

    /** Before a send of `text`: summarizes first when it would fill more of the context than the user allows. A failure is thrown. */
    async beforeSend(text: string): Promise<'fits' | 'compressed' | 'stopped'> {
        const { service, composer } = this.deps;
        const percent = this.deps.autoCompressPercent();
        if (!percent || !this.deps.chat() || !this.deps.hasMessages()) {
            return 'fits';
        }
        const input = { text, attachments: composer.attachmentRefs() };
        // Asked first without saying "Summarizing…": most sends fit, and the view must not flash at each. The backend decides again.
        const manifest = await service.estimate(await this.deps.chat()!, input, composer.sendOptions());
        if (!manifest || manifest.estimate * 100 <= manifest.limit * percent) {
            return 'fits';
        }
        const outcome = await this.run(chatId => service.compressIfFull(chatId, input, composer.sendOptions(), percent));
        if (outcome === 'shown') {
            this.deps.notice(`The chat filled more than ${percent}% of the agent's context, so it was summarized into this new chat first; `
                + 'the latest messages are kept as they were and the original chat stays saved.');
            return 'compressed';
        }
        return outcome === 'stopped' ? 'stopped' : 'fits';
    }

    /** Stops the summary being made; the backend leaves the chat as it was and saves nothing. */
    async stop(): Promise<void> {
        const chat = this.deps.chat();
        if (!this.active || !chat) {
            return;
        }
        this.stopped = true;
        try {
            await this.deps.service.cancelSummary(await chat);
        } catch {
            // The backend is away: the summary's own call fails, which ends it here as stopped.
        }
    }

    /** Makes a summary with the view saying so and shows the chat it made; 'stopped' when the user stopped it, a failure is thrown. */
    protected async run(make: (chatId: string) => Promise<OpenedChat | undefined>): Promise<'shown' | 'none' | 'stopped'> {
        this.active = true;
        this.stopped = false;
        this.deps.notice(undefined);
        this.deps.update();
        try {
            const opened = await make(await this.deps.chat()!);
            if (!opened) {
                return 'none';
            }
            await this.deps.show(opened);
            return 'shown';
        } catch (error) {
            if (this.stopped) {
                return 'stopped';
            }
            throw error;
        } finally {
            this.active = false;
            this.stopped = false;
            this.deps.update();
        }
    }
}
