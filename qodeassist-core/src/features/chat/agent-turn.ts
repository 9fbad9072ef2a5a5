import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { acpAgentStatus, awaitingConsentProblem } from '../../acp/acp-agent-check';
import { AcpEvent } from '../../acp/acp-events';
import { AcpPromptFile, AcpPromptImage, AcpPromptInput } from '../../acp/acp-prompt';
import { ConfigurationProvider, isProjectLayerLoaded } from '../../agents/configuration-service';
import { AcpAgentEntry } from '../../config/acp-agent-config';
import { agentForbidden, MANAGED_LABEL } from '../../config/managed-policy';
import { describeAgentPlan, describeAgentToolCall } from '../../context/agent-activity';
import { HistoryBlock, HistoryMessage, isUnfinished } from '../../context/conversation-history';
import { Logger } from '../../ports/logger';
import { QodeAssistError } from '../../wire/error-info';
import { AgentAnswer } from './agent-answer';
import { AgentLink } from './agent-link';
import { AgentChoice, ACP_AGENT_PREFIX, ChatEvent, ChatHost, ChatInput, ChatTurnOptions } from './chat-types';
import { ChatOwners } from './chat-owners';
import { endingOf, turnBlocks } from './chat-turn';
import { ChatViewer, OpenChat } from './open-chat';
import { acpProjectOrigin } from './project-origin';

/** Whether a turn's agent is an external (ACP) one: `acp:<name>`. */
export function isExternalAgent(agent: string | undefined): agent is string {
    return agent !== undefined && agent.startsWith(ACP_AGENT_PREFIX);
}

const TRUST_ADVICE = 'Trust the workspace (command "Manage Workspace Trust") to use it';

/**
 * The external agent a send names, checked: it is configured and enabled, the chat has a
 * workspace and the user trusts it (an agent reads, writes and runs what the workspace's files
 * ask it to — docs/ARCHITECTURE.md §7). Each refusal is a typed error saying what to do.
 */
export function externalAgentFor(configurations: ConfigurationProvider, options: ChatTurnOptions): { entry: AcpAgentEntry; workspace: string } {
    const name = (options.agent ?? '').slice(ACP_AGENT_PREFIX.length);
    const entry = configurations.forWorkspace(options.workspacePath).current.acpAgents.get(name);
    const awaiting = configurations.forWorkspace(options.workspacePath).current.acpAwaitingConsent.get(name);
    if (!entry && awaiting) {
        throw new QodeAssistError({ category: 'Validation', message: awaitingConsentProblem(awaiting) });
    }
    if (!entry && agentForbidden(configurations.forWorkspace(options.workspacePath).current.policy, `${ACP_AGENT_PREFIX}${name}`)) {
        throw new QodeAssistError({ category: 'Config', message: `The external agent "${name}" is ${MANAGED_LABEL}: it may not be used. Pick another in the chat's agent picker.` });
    }
    if (!entry) {
        throw new QodeAssistError({ category: 'Config', message: `There is no external agent named "${name}". Pick another in the chat's agent picker, or add acp/${name}.toml to ~/.qodeassist.` });
    }
    if (!entry.enabled) {
        throw new QodeAssistError({ category: 'Config', message: `The external agent "${name}" is disabled (enabled = false in ${entry.file.label}). Remove that line to use it.` });
    }
    if (!options.workspacePath) {
        throw new QodeAssistError({ category: 'Validation', message: `The external agent "${name}" works in a workspace folder: open a folder, then send again.` });
    }
    if (!isProjectLayerLoaded(configurations, options.workspacePath)) {
        throw new QodeAssistError({ category: 'Validation', message: `External agents run only in a trusted workspace: "${name}" would read, write and run what this workspace's files ask it to. ${TRUST_ADVICE}, or pick one of QodeAssist's own agents.` });
    }
    return { entry, workspace: options.workspacePath };
}

/** The chat picker's external agents, each saying why it cannot be picked now (disabled ones are left out). */
export async function externalAgentChoices(configurations: ConfigurationProvider, workspacePath: string | undefined): Promise<AgentChoice[]> {
    const configuration = configurations.forWorkspace(workspacePath).current;
    // A project's agent waiting for consent is listed, unavailable, with what it would run.
    const entries = [...configuration.acpAgents.values(), ...configuration.acpAwaitingConsent.values()].filter(entry => entry.enabled);
    const trusted = isProjectLayerLoaded(configurations, workspacePath);
    return Promise.all(entries.map(async (entry): Promise<AgentChoice> => {
        let unavailable: string | undefined;
        if (!workspacePath) {
            unavailable = 'External agents work in a workspace folder: open one first.';
        } else if (!trusted) {
            unavailable = `External agents run only in a trusted workspace. ${TRUST_ADVICE}.`;
        } else {
            unavailable = (await acpAgentStatus(entry, [workspacePath])).problem;
        }
        return {
            name: `${ACP_AGENT_PREFIX}${entry.name}`, model: entry.command, provider: 'ACP', kind: 'acp', inRoster: false, images: true,
            ...(entry.description ? { description: entry.description } : {}), ...(unavailable ? { unavailable } : {}),
            ...(entry.layer === 'project' ? { projectOrigin: acpProjectOrigin(entry) } : {})
        };
    }));
}

/** Characters of the earlier conversation a new agent session is given. */
const EARLIER_CHARS = 24_000;

/** The chat's earlier messages as text, for an agent that starts without them (the newest kept when they are long). */
export function earlierConversation(history: readonly HistoryMessage[]): string {
    const parts = history.flatMap(message => {
        const text = message.blocks.map(block => blockText(block)).filter(Boolean).join('\n');
        if (!text.trim() || (message.role === 'assistant' && isUnfinished(message) && !message.blocks.some(block => block.type === 'text'))) {
            return [];
        }
        return [`${message.role === 'user' ? 'User' : 'Assistant'}: ${text}`];
    });
    let joined = parts.join('\n\n');
    if (joined.length > EARLIER_CHARS) {
        joined = `[… earlier messages left out]\n${joined.slice(joined.length - EARLIER_CHARS)}`;
    }
    return joined;
}

function blockText(block: HistoryBlock): string {
    switch (block.type) {
        case 'text': return block.text;
        case 'attachment': case 'image': return `[attached ${block.ref.name}]`;
        case 'tool_use': return `[called ${block.name}]`;
        case 'file_edit': return `[${block.summary}: ${block.path}]`;
        case 'skill_invocation': return `[skill ${block.name}]`;
        case 'agent_tool_call': return describeAgentToolCall(block.agent, block.call);
        case 'agent_plan': return describeAgentPlan(block.agent, block.entries);
        default: return '';
    }
}

/**
 * The prompt for a user message: its text as typed (an agent's slash commands included), its
 * attachments (text embedded, images as data), the linked files (the agent reads them), and —
 * for a session that knows nothing of the chat yet — the earlier conversation before the text.
 */
export async function agentPrompt(question: HistoryMessage, earlier: readonly HistoryMessage[], linked: readonly string[] | undefined): Promise<AcpPromptInput> {
    const files: AcpPromptFile[] = [];
    const images: AcpPromptImage[] = [];
    for (const block of question.blocks) {
        if (block.type === 'attachment') {
            files.push({ path: block.ref.path, text: await readFile(block.ref.path, 'utf8'), mimeType: block.ref.mediaType });
        } else if (block.type === 'image') {
            images.push({ data: (await readFile(block.ref.path)).toString('base64'), mimeType: block.ref.mediaType });
        }
    }
    files.push(...(linked ?? []).map(path => ({ path })));
    const typed = question.blocks.flatMap(block => block.type === 'text' ? [block.text] : []).join('\n');
    const before = earlierConversation(earlier);
    const text = before ? `The conversation in this chat so far (for context; you did not see it in this session):\n\n${before}\n\n---\n\n${typed}` : typed;
    return { text, ...(files.length ? { files } : {}), ...(images.length ? { images } : {}) };
}

/**
 * An external agent's event to every window showing the chat. A turn's events are kept (a save
 * mid-stream, a window opening the chat meanwhile) and build its answer; a file it wrote gets
 * the key the chat keeps the edit under (for Undo); when the turn ends, its answer — finished,
 * failed or stopped — joins the history and the chat is saved. Modes, commands and usage told
 * between turns go to the windows only.
 */
export function forwardAgentEvent(chat: OpenChat, owners: ChatOwners, event: AcpEvent): void {
    if (event.type === 'ToolCallStart' || event.type === 'ToolResult' || event.type === 'AcpUserMessage') {
        // The agent's tool calls come as AcpToolCall; replayed user messages are in the history already.
        return;
    }
    const live = chat.live;
    const inTurn = live !== undefined && event.requestId === live.requestId;
    if (!inTurn) {
        if (event.type === 'AcpMode' || event.type === 'AcpCommands' || event.type === 'AcpUsage' || event.type === 'AcpNotice') {
            owners.broadcast(chat, [event]);
        }
        return;
    }
    let told: ChatEvent;
    if (event.type === 'AcpFileWrite') {
        const editId = `acp-write:${live.requestId}:${Object.keys(chat.record.edits).length + 1}`;
        chat.record.edits[editId] = { ...event.edit, state: 'applied' };
        told = { ...event, editId };
    } else {
        told = event;
    }
    chat.agentAnswer?.add(told);
    try {
        chat.keep([told]);
        owners.broadcast(chat, [told]);
    } finally {
        if (told.type === 'Finished' || told.type === 'Failed' || told.type === 'Cancelled') {
            const answer = chat.agentAnswer;
            chat.agentAnswer = undefined;
            if (answer) {
                chat.append(answer.message(endingOf([told])));
            }
            chat.end();
            owners.save(chat);
        } else {
            owners.saveSoon(chat);
        }
    }
}

/** What sending to an external agent needs of the chat feature. */
export interface AgentTurnContext {
    configurations: ConfigurationProvider;
    owners: ChatOwners;
    logger?: Logger;
    /** An external agent's turn ended (finished, failed or stopped): the checkpoint after it is taken. */
    turnEnded?(chat: OpenChat, requestId: string): void;
}

/**
 * Sends a chat's message to an external agent: the chat's link to the agent (started at its first
 * message, replaced when the agent's entry changed), its session (loaded again or new, then told
 * the earlier conversation), the question joined to the history and announced to every window,
 * and the prompt turn started, its events forwarded. `asked`: the question already in the history
 * (Regenerate). Throws before anything is changed when the turn cannot start.
 */
export async function sendToAgent(context: AgentTurnContext, chat: OpenChat, input: ChatInput, options: ChatTurnOptions, asker: { host: ChatHost | undefined; viewer: ChatViewer; stillShown(): void }, asked?: HistoryMessage): Promise<string> {
    const { entry, workspace } = externalAgentFor(context.configurations, options);
    const question: HistoryMessage = asked ?? { role: 'user', blocks: turnBlocks(chat, input, undefined) };
    if (!question.blocks.some(block => block.type === 'text' || block.type === 'attachment' || block.type === 'image')) {
        throw new QodeAssistError({ category: 'Validation', message: 'The message is empty; type what the agent should do.' });
    }
    if (chat.agentLink && !chat.agentLink.matches(entry, workspace)) {
        void chat.agentLink.close();
        chat.agentLink = undefined;
    }
    const link = chat.agentLink ?? new AgentLink(entry, workspace, {
        useGitignore: options.tools?.useGitignore, logger: context.logger, chatId: () => chat.id,
        policy: context.configurations.forWorkspace(options.workspacePath).current.policy,
        onEvent: event => {
            const running = chat.live?.requestId;
            forwardAgentEvent(chat, context.owners, event);
            if (running !== undefined && chat.live?.requestId !== running) {
                context.turnEnded?.(chat, running);
            }
        }
    });
    chat.agentLink = link;
    link.asker = asker.host;
    const earlierSession = chat.record.agentSession?.agent === entry.name ? chat.record.agentSession : undefined;
    let opened: Awaited<ReturnType<AgentLink['open']>>;
    try {
        opened = await link.open(earlierSession);
    } catch (error) {
        // An agent that could not start (not installed yet, not signed in) is started afresh at the next message.
        if (chat.agentLink === link) {
            chat.agentLink = undefined;
        }
        void link.close();
        throw error;
    }
    const { session, fresh } = opened;
    const earlier = asked ? chat.history.slice(0, -1) : chat.history;
    const prompt = await agentPrompt(question, fresh ? earlier : [], options.linked);
    asker.stillShown();
    chat.record.agentSession = { agent: entry.name, sessionId: session.id };
    if (!asked) {
        chat.append(question);
    }
    const requestId = randomUUID();
    chat.sender = asker.viewer;
    chat.agentAnswer = new AgentAnswer(entry.name);
    chat.begin(requestId);
    if (!asked) {
        context.owners.broadcast(chat, [{ type: 'UserMessage', ...(input.turnId ? { turnId: input.turnId } : {}), message: question }]);
    }
    void session.prompt(prompt, { requestId });
    return requestId;
}

/** Switches the mode of the external agent answering in the chat; every window hears it. */
export async function setAgentMode(chat: OpenChat, modeId: string): Promise<void> {
    const session = chat.agentLink?.session;
    if (!session) {
        throw new QodeAssistError({ category: 'Validation', message: 'No external agent\'s session is open in this chat; send it a message first, then pick a mode.' });
    }
    await session.setMode(modeId);
}
