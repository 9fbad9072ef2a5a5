import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ConfigurationProvider } from '../../agents/configuration-service';
import { compressWithRoster } from '../../agents/roster-compression';
import { ContextManifest } from '../../context/context-manifest';
import { contentRefsOf, HistoryMessage } from '../../context/conversation-history';
import { CHAT_FILE_VERSION, StoredChat, StoredFileEdit, titleOf } from '../../session/chat-store';
import { QodeAssistRuntime } from '../../runtime/qodeassist-runtime';
import { QodeAssistError } from '../../wire/error-info';
import { ChatTurnOptions, editIdOf } from './chat-types';
import { OpenChat } from './open-chat';

/** Share of the chat agent's budget the turns kept word for word after an automatic summary may take. */
export const RECENT_SHARE = 0.25;

export interface ChatSummaryContext {
    runtime: QodeAssistRuntime;
    configurations: ConfigurationProvider;
}

/**
 * Whether a send measured at `manifest` fills more than `percent` of the agent's budget, so the
 * chat is summarized first (auto-compression; 0 is off). With the tokens the recent turns may keep.
 */
export function compressionDue(manifest: ContextManifest | undefined, percent: number): { keepRecentTokens: number } | undefined {
    if (!manifest || !(percent > 0) || manifest.estimate * 100 <= manifest.limit * percent) {
        return undefined;
    }
    return { keepRecentTokens: Math.floor(manifest.limit * RECENT_SHARE) };
}

/**
 * Summarizes an open chat through the compression roster into a new saved chat linked to it
 * (`compressedFrom`); the recent turns `keepRecentTokens` allows follow the summary with their
 * attachments and file edits. The original chat is not changed, and nothing is written before the
 * summary is made: a stop (`signal`, CancelledError) or a failure leaves no file behind.
 */
export async function summarizeChat(
    context: ChatSummaryContext, chat: OpenChat, options: ChatTurnOptions, run: { signal: AbortSignal; keepRecentTokens?: number }
): Promise<{ summary: OpenChat; stored: StoredChat }> {
    const history = [...chat.history];
    const configurationService = context.configurations.forWorkspace(options.workspacePath);
    const result = await compressWithRoster(history, {
        configuration: configurationService.current, sessions: context.runtime.sessions(configurationService), estimator: context.runtime.estimator,
        compressedFrom: chat.id, routing: { file: options.file, project: options.project }, keepRecentTokens: run.keepRecentTokens, signal: run.signal
    });
    const id = randomUUID();
    const now = new Date().toISOString();
    const title = chat.record.title ?? titleOf(history);
    const kept = history.slice(history.length - result.kept);
    const stored: StoredChat = {
        version: CHAT_FILE_VERSION, id, title: title.startsWith('Summary: ') ? title : `Summary: ${title}`, createdAt: now, updatedAt: now,
        agent: chat.record.agent, role: chat.record.role, edits: keptEdits(history, kept, chat.record.edits), compressedFrom: chat.id,
        history: [...result.history.slice(0, result.history.length - kept.length), ...await copyAttachments(chat, kept, id)]
    };
    try {
        const outcome = await chat.store.saveOver(stored, { revision: 0 });
        if ('conflict' in outcome) {
            throw new QodeAssistError({ category: 'Config', message: `The summary could not be saved: ${outcome.conflict}.` });
        }
        return { summary: OpenChat.fromStored(chat.store, stored, history, outcome.saved), stored };
    } catch (error) {
        await rm(dirname(chat.store.attachmentsOf(id)), { recursive: true, force: true });
        throw error;
    }
}

/** The kept messages' attachments copied into the summary chat's own folder (a chat file refers only to its own copies). */
async function copyAttachments(chat: OpenChat, kept: readonly HistoryMessage[], toId: string): Promise<HistoryMessage[]> {
    const owners = [chat.id, ...chat.formerIds];
    const refs = kept.flatMap(message => message.blocks.flatMap(contentRefsOf))
        .filter(ref => owners.some(owner => chat.store.ownsAttachment(owner, ref.path)));
    if (refs.length === 0) {
        return [...kept];
    }
    const folder = chat.store.attachmentsOf(toId);
    await mkdir(folder, { recursive: true });
    // A chat that moved to its conflict copy has every attachment in its current folder already.
    for (const name of new Set(refs.map(ref => basename(ref.path)))) {
        await copyFile(join(chat.store.attachmentsOf(chat.id), name), join(folder, name));
    }
    return chat.store.relocateAttachments(kept, owners, toId);
}

/** The file edits of the kept tool results, under the keys they get in the summary chat (results with a reused call id are numbered anew). */
function keptEdits(history: readonly HistoryMessage[], kept: readonly HistoryMessage[], edits: Record<string, StoredFileEdit>): Record<string, StoredFileEdit> {
    const seen = new Map<string, number>();
    const count = (callId: string) => {
        const earlier = seen.get(callId) ?? 0;
        seen.set(callId, earlier + 1);
        return earlier;
    };
    const originalKeys = history.flatMap(message => message.blocks.flatMap(block => block.type === 'tool_result' ? [editIdOf(block.toolUseId, count(block.toolUseId))] : []));
    seen.clear();
    const keptKeys = kept.flatMap(message => message.blocks.flatMap(block => block.type === 'tool_result' ? [editIdOf(block.toolUseId, count(block.toolUseId))] : []));
    const offset = originalKeys.length - keptKeys.length;
    const result: Record<string, StoredFileEdit> = {};
    keptKeys.forEach((key, index) => {
        const edit = edits[originalKeys[offset + index]];
        if (edit) {
            result[key] = structuredClone(edit);
        }
    });
    return result;
}

/** The summaries one window is making, by chat: each can be stopped until it is saved. */
export class SummaryRuns {
    private readonly running = new Map<string, AbortController>();

    /** Runs `work` as the chat's summary, stopped through `signal`; a second summary of the chat meanwhile is refused. */
    async run<T>(chatId: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
        if (this.running.has(chatId)) {
            throw new QodeAssistError({ category: 'Validation', message: 'This chat is being summarized already; wait for the summary or stop it.' });
        }
        const controller = new AbortController();
        this.running.set(chatId, controller);
        try {
            return await work(controller.signal);
        } finally {
            if (this.running.get(chatId) === controller) {
                this.running.delete(chatId);
            }
        }
    }

    stop(chatId: string): void {
        this.running.get(chatId)?.abort();
    }

    stopAll(): void {
        for (const controller of this.running.values()) {
            controller.abort();
        }
    }
}
