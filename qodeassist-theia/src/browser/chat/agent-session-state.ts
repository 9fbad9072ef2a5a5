import type { AgentSessionState, ChatEvent } from '../../common/chat-protocol';

/**
 * The modes and slash commands the external agent of a chat offers now, as its events tell them:
 * an `AcpMode` with the modes names them all, a later one only the current mode; `AcpCommands`
 * replaces the list. Other events leave the state as it is.
 */
export function nextAgentState(state: AgentSessionState | undefined, event: ChatEvent): AgentSessionState | undefined {
    if (event.type === 'AcpMode') {
        const modes = event.availableModes
            ? { currentModeId: event.currentModeId, availableModes: event.availableModes }
            : state?.modes && { ...state.modes, currentModeId: event.currentModeId };
        return { agent: state?.agent ?? '', commands: state?.commands ?? [], ...(modes ? { modes } : {}) };
    }
    if (event.type === 'AcpCommands') {
        return { agent: state?.agent ?? '', ...(state?.modes ? { modes: state.modes } : {}), commands: event.commands };
    }
    return state;
}

/** The agent's commands a `/query` offers: by name, with the description and what to type after it. */
export function commandSuggestions(state: AgentSessionState | undefined, query: string): Array<{ value: string; detail?: string }> {
    return (state?.commands ?? []).filter(command => command.name.startsWith(query))
        .map(command => ({ value: command.name, detail: command.hint ? `${command.description} — ${command.hint}` : command.description }));
}
