import type { SessionConfigOption, SessionModeState } from '@agentclientprotocol/sdk';
import { QodeAssistError } from '../wire/error-info';
import { AgentChoice, RoleChoice } from '../features/chat/chat-types';
import { ChatMode } from '../features/chat/plan-mode';

/** The session's picks; an absent agent means the chat roster's pick, as in the IDE's chat. */
export interface SessionChoices {
    agent?: string;
    role?: string;
    /** Plan or act (absent: act). */
    mode?: ChatMode;
}

/** What the pickers offer for the session's folder, and the roster's pick. */
export interface SessionCatalog {
    agents: readonly AgentChoice[];
    roles: readonly RoleChoice[];
    /** The agent the chat roster picks when the user picked none; undefined when none fits. */
    rosterPick?: string;
}

export const AGENT_OPTION = 'agent';
export const MODE_OPTION = 'mode';
export const ROLE_OPTION = 'role';
/** The role picker's "no role" value. */
export const NO_ROLE = 'none';

function currentAgent(catalog: SessionCatalog, choices: SessionChoices): string | undefined {
    return choices.agent ?? catalog.rosterPick ?? catalog.agents[0]?.name;
}

/**
 * The chat's agent picker (category "model": it picks the model that answers) and role picker as
 * ACP session config options. The agent picker lists the chat roster's agents first, as the IDE's does.
 */
export function sessionConfigOptions(catalog: SessionCatalog, choices: SessionChoices): SessionConfigOption[] {
    const options: SessionConfigOption[] = [];
    const agent = currentAgent(catalog, choices);
    if (agent) {
        options.push({
            type: 'select', id: AGENT_OPTION, name: 'Agent', category: 'model',
            description: 'The QodeAssist agent (provider and model) that answers; the chat roster\'s agents come first.',
            currentValue: agent,
            options: catalog.agents.map(choice => ({ value: choice.name, name: choice.name, description: `${choice.model} · ${choice.provider}${choice.images ? ' · images' : ''}` }))
        });
    }
    options.push({
        type: 'select', id: MODE_OPTION, name: 'Mode', category: 'mode',
        description: 'Plan: the agent reads and proposes a plan, with read-only tools. Act: it carries the work out with its tools, a plan made before pinned.',
        currentValue: choices.mode ?? 'act',
        options: SESSION_MODES.map(mode => ({ value: mode.id, name: mode.name, description: mode.description }))
    });
    options.push({
        type: 'select', id: ROLE_OPTION, name: 'Role', description: 'A role whose system prompt joins the agent\'s.',
        currentValue: choices.role ?? NO_ROLE,
        options: [{ value: NO_ROLE, name: 'No role' }, ...catalog.roles.map(role => ({ value: role.id, name: role.name, description: role.description || null }))]
    });
    return options;
}

const SESSION_MODES: ReadonlyArray<{ id: ChatMode; name: string; description: string }> = [
    { id: 'act', name: 'Act', description: 'The agent works with its tools (writes and commands still ask).' },
    { id: 'plan', name: 'Plan', description: 'The agent reads and proposes a plan; nothing is changed or run.' }
];

/** Plan and Act as session modes (kept in step with the mode option), as ACP clients show an agent's modes. */
export function sessionModes(choices: SessionChoices): SessionModeState {
    return { currentModeId: choices.mode ?? 'act', availableModes: SESSION_MODES.map(mode => ({ ...mode })) };
}

/** The session's picks after the user set an option (or a mode, which is the mode option); a value not offered is refused with the ones that are. */
export function applyChoice(catalog: SessionCatalog, choices: SessionChoices, configId: string, value: unknown): SessionChoices {
    if (configId === AGENT_OPTION) {
        if (typeof value !== 'string' || !catalog.agents.some(choice => choice.name === value)) {
            throw new QodeAssistError({
                category: 'Validation',
                message: `There is no chat agent ${JSON.stringify(value)} here; pick one of: ${catalog.agents.map(choice => choice.name).join(', ') || '(none: add agents to the [chat] roster)'}.`
            });
        }
        return { ...choices, agent: value };
    }
    if (configId === ROLE_OPTION) {
        if (value === NO_ROLE) {
            return { ...choices, role: undefined };
        }
        if (typeof value !== 'string' || !catalog.roles.some(role => role.id === value)) {
            throw new QodeAssistError({
                category: 'Validation',
                message: `There is no role ${JSON.stringify(value)}; pick "${NO_ROLE}" or one of: ${catalog.roles.map(role => role.id).join(', ')}.`
            });
        }
        return { ...choices, role: value };
    }
    if (configId === MODE_OPTION) {
        if (value !== 'act' && value !== 'plan') {
            throw new QodeAssistError({ category: 'Validation', message: `There is no mode ${JSON.stringify(value)}; pick "act" or "plan".` });
        }
        return { ...choices, mode: value };
    }
    throw new QodeAssistError({ category: 'Validation', message: `QodeAssist has no session option "${configId}"; it has "${AGENT_OPTION}", "${MODE_OPTION}" and "${ROLE_OPTION}".` });
}
