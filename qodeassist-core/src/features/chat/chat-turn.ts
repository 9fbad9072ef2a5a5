import { readFile } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import { explainAuthError } from '../../agents/agent-request';
import { ResolvedAgent } from '../../agents/configuration-loader';
import { ConfigurationProvider, isProjectLayerLoaded } from '../../agents/configuration-service';
import { AnswerEnding, ContentRef, HistoryBlock, HistoryMessage } from '../../context/conversation-history';
import { ENV_PROJECT_LAYER } from '../../context/env-block';
import { Session, ToolPolicy } from '../../session/session';
import { isTerminal, SessionEvent } from '../../session/session-events';
import { QodeAssistRuntime } from '../../runtime/qodeassist-runtime';
import { SkillsEngine } from '../../skills/skills-engine';
import { ToolKitExecutor } from '../../tools/tool-executor';
import { ErrorInfo, QodeAssistError } from '../../wire/error-info';
import { chatAgentFor } from './chat-agents';
import { chatEnvironment } from './chat-environment';
import { applyRulesFiles, relevantFiles } from './chat-rules';
import { lastPlan, PLAN_MODE_LAYER, PLAN_MODE_TEXT, PLAN_PIN, planPin, ReadOnlyTools } from './plan-mode';
import { ChatEvent, ChatHost, ChatInput, ChatTurnOptions, editIdOf } from './chat-types';
import { ChatOwners } from './chat-owners';
import { OpenChat } from './open-chat';

/** The pinned block naming the file in focus (the environment block's file line). */
const ACTIVE_FILE_PIN = 'env.file';

/** A turn ready to send: the session as configured now, the chat's tools, and the skills `/name` invokes. */
export interface PreparedTurn {
    session: Session;
    /** The tools offered this turn and the chat's executor for them (empty: none). */
    policy: ToolPolicy;
    skills?: SkillsEngine;
}

/** What preparing a turn needs from the chat feature. */
export interface ChatTurnContext {
    runtime: QodeAssistRuntime;
    configurations: ConfigurationProvider;
    host(): ChatHost | undefined;
    /** Where the session's events go (the feature numbers edits and saves). */
    listener(chat: OpenChat, agent: ResolvedAgent): (events: readonly SessionEvent[]) => void;
}

/**
 * The chat's session for the agent this send goes to, with its layers (role, environment,
 * skills), linked files and tools set. The session follows the configuration: when the agent,
 * its provider, its model override or its key changed since the last send, a session of the
 * agent as it is now takes over the conversation.
 */
export async function prepareTurn(context: ChatTurnContext, chat: OpenChat, options: ChatTurnOptions): Promise<PreparedTurn> {
    const configurationService = context.configurations.forWorkspace(options.workspacePath);
    const configuration = configurationService.current;
    const agent = chatAgentFor(configuration, options);
    const sessions = context.runtime.sessions(configurationService);
    // Resolved once per configuration and key: another object means something changed since this session began.
    const current = await sessions.agent(agent.name);
    if (chat.session?.agent !== current) {
        // Acquire first, so a failure (a missing key) leaves the chat and its history as they were.
        const session = await sessions.acquire(agent.name, context.listener(chat, agent));
        const previous = chat.session;
        // A request still running on the old session ends first: its answer is in the history that moves, or it was cancelled.
        await previous?.cancel();
        session.restore(previous?.history ?? chat.seed);
        chat.session = session;
        chat.linked.clear();
        if (previous) {
            await sessions.release(previous);
        }
    }
    const session = chat.session;
    const role = options.role ? configuration.roles.get(options.role) : undefined;
    if (options.role && !role) {
        throw new QodeAssistError({ category: 'Config', message: `There is no role "${options.role}". Pick another role, or add roles/${options.role}.json to .qodeassist.` });
    }
    if (role) {
        session.setLayer('agent.role', role.systemPrompt);
    } else {
        session.removeLayer('agent.role');
    }
    link(context, chat, session, options);
    const projectTrusted = isProjectLayerLoaded(context.configurations, options.workspacePath);
    const skills = context.runtime.skillsFor(options.workspacePath, options.skills, projectTrusted);
    const tools = agent.enableTools && options.workspacePath && options.offerTools !== false
        ? toolsFor(context, chat, options.workspacePath, options, skills, projectTrusted)
        : undefined;
    const environment = await chatEnvironment(context.runtime, options, !!tools?.definitions().some(tool => tool.name === 'build_project'));
    session.setLayer(ENV_PROJECT_LAYER, environment.project);
    if (environment.file) {
        session.pinContext(ACTIVE_FILE_PIN, async () => ({ id: ACTIVE_FILE_PIN, label: 'Active file', text: environment.file }));
    } else {
        session.unpinContext(ACTIVE_FILE_PIN);
    }
    session.setLayer('skills.catalog', skills ? [skills.alwaysOnText(), tools ? skills.catalog() : ''].filter(Boolean).join('\n\n') : '');
    if (options.workspacePath) {
        const relevant = relevantFiles(options.workspacePath, options.file, options.linked ?? [], session.history);
        applyRulesFiles(session, chat.rulesLayers, projectTrusted ? options.workspacePath : undefined, relevant, options.rules, options.tools?.useGitignore ?? true);
    }
    return { session, policy: applyMode(chat, session, options, tools), skills };
}

/**
 * Plan mode offers read-class tools only and asks for a plan; the first Act after it pins that plan
 * (or the user's edit of it), with the todo checklist as it stands at each send, until the next plan.
 */
function applyMode(chat: OpenChat, session: Session, options: ChatTurnOptions, tools: ToolKitExecutor | undefined): ToolPolicy {
    if (options.mode === 'plan') {
        session.setLayer(PLAN_MODE_LAYER, PLAN_MODE_TEXT);
        session.unpinContext(PLAN_PIN);
        chat.planning = true;
        const readOnly = tools && new ReadOnlyTools(tools);
        return readOnly ? { tools: readOnly.definitions(), executor: readOnly } : {};
    }
    session.removeLayer(PLAN_MODE_LAYER);
    if (chat.planning || options.plan !== undefined) {
        chat.planning = false;
        const plan = options.plan ?? lastPlan(session.history);
        session.pinContext(PLAN_PIN, planPin(plan, () => session.history));
    }
    return tools ? { tools: tools.definitions(), executor: tools } : {};
}

/** The user's blocks: attachments (checked to be this chat's own copies), then a skill invocation (with the turn's skills) or the text. */
export function turnBlocks(chat: OpenChat, input: ChatInput, skills: SkillsEngine | undefined): HistoryBlock[] {
    const attached = input.attachments.map((ref): HistoryBlock => {
        if (!chat.store.ownsAttachment(chat.id, ref.path)) {
            throw new QodeAssistError({ category: 'Validation', message: `The attachment ${ref.name} is not one of this chat's; attach it again.` });
        }
        return attachmentBlock(ref);
    });
    const text = input.text.trim();
    const typed = !text ? [] : skills?.invoke(text) ?? [{ type: 'text' as const, text }];
    return [...attached, ...typed];
}

/** An attached copy as the history holds it: an image, or a file whose text is sent. */
function attachmentBlock(ref: ContentRef): HistoryBlock {
    return ref.mediaType.startsWith('image/') ? { type: 'image', ref } : { type: 'attachment', ref };
}

/**
 * A message that could not go, as the chat keeps it with its failure: its text and the
 * attachments that are the chat's own (nothing is checked or invoked; Retry sends it properly).
 */
export function recordableBlocks(chat: OpenChat, input: ChatInput): HistoryBlock[] {
    const attached = input.attachments.filter(ref => chat.store.ownsAttachment(chat.id, ref.path)).map(attachmentBlock);
    const text = input.text.trim();
    return [...attached, ...text ? [{ type: 'text' as const, text }] : []];
}

/** A question kept as typed (`/name args` as text, see recordableBlocks) with the skill invoked, if `name` is one; otherwise as it is. */
export function invokeRecordedSkill(message: HistoryMessage, skills: SkillsEngine | undefined): HistoryMessage {
    if (message.blocks.some(block => block.type === 'skill_invocation')) {
        return message;
    }
    const texts = message.blocks.filter(block => block.type === 'text');
    const invoked = texts.length === 1 && texts[0].type === 'text' ? skills?.invoke(texts[0].text) : undefined;
    return invoked ? { ...message, blocks: [...message.blocks.filter(block => block.type !== 'text'), ...invoked] } : message;
}

/** A failure as the chat shows it: an Auth error names where the key is read from. */
export function explainAuthFailure(agent: ResolvedAgent, event: SessionEvent): SessionEvent {
    return event.type === 'Failed' ? { ...event, error: explainAuthError(agent, event.error) } : event;
}

/** Linked files become pinned context, read again at every send: the editor's text first, else the disk. */
function link(context: ChatTurnContext, chat: OpenChat, session: Session, options: ChatTurnOptions): void {
    const wanted = new Set(options.linked ?? []);
    for (const path of chat.linked) {
        if (!wanted.has(path)) {
            session.unpinContext(`linked:${path}`);
            chat.linked.delete(path);
        }
    }
    for (const path of wanted) {
        if (chat.linked.has(path) || !isAbsolute(path)) {
            continue;
        }
        const label = options.workspacePath ? relative(options.workspacePath, path) : path;
        session.pinContext(`linked:${path}`, async () => {
            const text = await context.host()?.readOpenDocument?.(path) ?? await readFile(path, 'utf8').catch(() => undefined);
            return text === undefined
                ? { id: `linked:${path}`, label: `Linked file ${label}`, text: `[linked file ${label} could not be read]` }
                : { id: `linked:${path}`, label: `Linked file ${label}`, text: `Linked file ${label}:\n\`\`\`\n${text}\n\`\`\`` };
        });
        chat.linked.add(path);
    }
}

/** The built-in tools for a chat, confined to its workspace folder; write and execute ask the user in that chat. */
function toolsFor(context: ChatTurnContext, chat: OpenChat, workspace: string, options: ChatTurnOptions, skills: SkillsEngine | undefined, projectTrusted: boolean): ToolKitExecutor {
    // Granting or withdrawing trust changes the tools offered and the skills' roots.
    const key = JSON.stringify([workspace, options.tools ?? null, chat.original !== undefined, options.skills ?? null, projectTrusted]);
    // The window that sends answers the tools' questions: each window has the chat's tools of its own.
    const host = context.host();
    let tools = chat.tools.get(host);
    if (tools?.key !== key) {
        const original = chat.original;
        const executor = context.runtime.toolKit({
            host, ownerId: chat.id, workspace, projectTrusted, settings: options.tools, skills,
            originalHistory: original ? () => original : undefined
        });
        tools = { key, executor };
        chat.tools.set(host, tools);
    }
    return tools.executor;
}

/** How a request that did not finish ended, from its terminal event (undefined when it finished). */
export function endingOf(events: readonly ChatEvent[]): AnswerEnding | undefined {
    for (const event of events) {
        if (event.type === 'Failed') {
            return { reason: 'failed', error: keptError(event.error) };
        }
        if (event.type === 'Cancelled') {
            return { reason: 'cancelled' };
        }
    }
    return undefined;
}

/** The part of an error a chat keeps with a failed answer. */
export function keptError(error: ErrorInfo): Extract<AnswerEnding, { reason: 'failed' }>['error'] {
    return {
        category: error.category, message: error.message,
        ...error.providerDetail !== undefined ? { providerDetail: error.providerDetail } : {}, ...error.status !== undefined ? { status: error.status } : {}
    };
}

/** A file edit's result names the key the chat keeps it under; an Auth failure where the key comes from. */
export function chatEventOf(chat: OpenChat, agent: ResolvedAgent, event: SessionEvent): ChatEvent {
    if (event.type !== 'ToolResult' || !event.fileEdit) {
        return explainAuthFailure(agent, event);
    }
    // The round's results join the history after this event: count the earlier ones with this id.
    const earlier = chat.history.reduce((sum, message) => sum + message.blocks.filter(block => block.type === 'tool_result' && block.toolUseId === event.callId).length, 0);
    const editId = editIdOf(event.callId, earlier);
    chat.record.edits[editId] = { ...event.fileEdit, state: 'applied' };
    return { ...event, editId };
}

/** The session's events to every window showing the chat: a new request is announced with its user message, edits get their ids, the answer is saved as it streams and when it ends. */
export function forwardSessionEvents(chat: OpenChat, owners: ChatOwners, agent: ResolvedAgent, events: readonly SessionEvent[]): void {
    const told: ChatEvent[] = [];
    const kept: ChatEvent[] = [];
    for (const event of events) {
        if (event.type === 'RequestStarted') {
            chat.begin(event.requestId);
            const message = chat.history.at(-1);
            if (chat.announce && message?.role === 'user') {
                told.push({ type: 'UserMessage', ...(chat.announce.turnId ? { turnId: chat.announce.turnId } : {}), message });
            }
            chat.announce = undefined;
        }
        const forwarded = chatEventOf(chat, agent, event);
        told.push(forwarded);
        kept.push(forwarded);
    }
    const terminal = events.some(isTerminal);
    try {
        chat.keep(kept);
        owners.broadcast(chat, told);
    } finally {
        // Whatever a window did with the events, a request that ended lets the next one go.
        if (terminal) {
            const ending = endingOf(kept);
            if (ending && chat.live) {
                // A failed or stopped answer stays in the chat, with what had arrived of it.
                chat.append(chat.unfinishedAnswer(ending));
            }
            chat.end();
            owners.save(chat);
        } else if (chat.live) {
            owners.saveSoon(chat);
        }
    }
}
