import { Configuration, ResolvedAgent } from '../../agents/configuration-loader';
import { managedAgentRefusal, managedRosterNote, pickAgent } from '../../agents/agent-router';
import { Pipeline } from '../../config/schemas';
import { CHAT_PROTOCOLS } from '../../wire/wire-protocols';
import { QodeAssistError } from '../../wire/error-info';
import { AgentChoice } from './chat-types';
import { agentProjectOrigin } from './project-origin';

/**
 * The agents a feature's picker offers: its roster's, in roster order, then the agents the
 * user marked for it (`pipelines = ["chat"]` in the agent file), by name. Only agents that speak
 * a chat protocol: a completion, refactor or compression agent's body ignores the user's message,
 * so it is offered for chat only when the user put it in the roster or marked it. `others: 'all'`
 * follows the roster with every chat-protocol agent instead (the refactor's picker: few rosters
 * have a refactor agent for each provider, and a chat agent rewrites a selection well enough).
 */
export function agentChoices(configuration: Configuration, pipeline: Pipeline, others: 'marked' | 'all' = 'marked'): AgentChoice[] {
    const roster = configuration.rosters[pipeline];
    const listed = roster
        .map(name => configuration.agents.get(name))
        .filter((agent): agent is ResolvedAgent => !!agent && CHAT_PROTOCOLS.has(agent.protocol));
    const inRoster = new Set(listed.map(agent => agent.name));
    const marked = [...configuration.agents.values()]
        .filter(agent => !inRoster.has(agent.name) && CHAT_PROTOCOLS.has(agent.protocol) && (others === 'all' || agent.pipelines.includes(pipeline)))
        .sort((a, b) => a.name.localeCompare(b.name));
    const choice = (agent: ResolvedAgent, listedHere: boolean): AgentChoice => ({
        name: agent.name, model: agent.model, provider: agent.provider.instance.name, inRoster: listedHere, images: agent.images,
        ...withProjectOrigin(agentProjectOrigin(agent, configuration))
    });
    return [...listed.map(agent => choice(agent, true)), ...marked.map(agent => choice(agent, false))];
}

/** The agent the user chose, or the chat roster's first that fits the file. */
export function chatAgentFor(configuration: Configuration, options: { agent?: string; file?: string; project?: string }): ResolvedAgent {
    const agent = options.agent
        ? configuration.agents.get(options.agent)
        : pickAgent(configuration, 'chat', { file: options.file, project: options.project });
    if (agent) {
        return agent;
    }
    const refusal = options.agent ? managedAgentRefusal(configuration, options.agent) : undefined;
    if (refusal) {
        throw new QodeAssistError({ category: 'Config', message: `${refusal} Pick another in the chat's agent picker.` });
    }
    const errors = configuration.issues.filter(issue => issue.severity === 'error').length;
    throw new QodeAssistError({
        category: 'Config',
        message: options.agent
            ? `There is no agent named "${options.agent}". Pick another in the chat's agent picker or the QodeAssist settings (qodeassist.chat.agent).`
            : `No chat agent is available: the chat roster is empty or none of its agents fits this file.${errors ? ` The configuration has ${errors} error(s); fix them first.` : ''}${managedRosterNote(configuration, 'chat')} Add an agent to [chat] in .qodeassist/agents/rosters.toml.`
    });
}

/** How many agents that take images a refusal names; the picker lists them all. */
const NAMED_IMAGE_AGENTS = 4;

/**
 * An image attached for an agent that takes none: refused at once, naming the agent and the chat
 * agents that take images (the window offers to switch to them), so it is never dropped in silence.
 */
export class ImagesNotTakenError extends QodeAssistError {
    constructor(readonly agent: string, readonly imageAgents: readonly string[], image: string) {
        const named = imageAgents.slice(0, NAMED_IMAGE_AGENTS).join(', ');
        const more = imageAgents.length > NAMED_IMAGE_AGENTS ? ` and ${imageAgents.length - NAMED_IMAGE_AGENTS} more` : '';
        super({
            category: 'Validation',
            message: `${agent} takes no images (its request template sends text only, or its file says images = false), so "${image}" was not attached. `
                + (imageAgents.length > 0
                    ? `Switch to an agent that takes images (${named}${more}) in the agent picker, then attach it again.`
                    : 'None of the chat agents takes images: add images to an agent\'s messages template (see the README, "Images"), or describe the image in words.')
        });
        this.name = 'ImagesNotTakenError';
    }
}

/**
 * Refuses an image for the agent a turn with these options would go to, when that agent takes none.
 * Any other file passes, and so does an image while no agent fits (the send says what to set up).
 */
export function checkImageFor(configuration: Configuration, options: { agent?: string; file?: string; project?: string }, name: string, mediaType: string): void {
    if (!mediaType.startsWith('image/')) {
        return;
    }
    const agent = options.agent ? configuration.agents.get(options.agent) : pickAgent(configuration, 'chat', { file: options.file, project: options.project });
    if (agent && !agent.images) {
        throw new ImagesNotTakenError(agent.name, agentChoices(configuration, 'chat').filter(choice => choice.images).map(choice => choice.name), name);
    }
}

function withProjectOrigin(origin: ReturnType<typeof agentProjectOrigin>): Pick<AgentChoice, 'projectOrigin'> {
    return origin ? { projectOrigin: origin } : {};
}
