import { PreferenceInspection, PreferenceScope, PreferenceService } from '@theia/core';
import { JSONValue } from '@theia/core/shared/@lumino/coreutils';

/**
 * Where a QodeAssist setting may come from. A repository's `.theia/settings.json` is written by
 * whoever wrote the repository, so a setting that grants power is read from the user's own
 * settings only; a project may narrow, never widen (ARCHITECTURE §7).
 * - `user`: the user's settings and the default; workspace and folder values are ignored.
 * - `narrow`: every scope counts, and the most restrictive value wins (a project can turn
 *   things off, never back on).
 * - `any`: ordinary scoping (the workspace overrides the user); nothing it grants is power.
 */
export type ScopeRule = 'user' | 'narrow' | 'any';

export const PREFERENCE_SCOPE_RULES: Readonly<Record<string, { rule: ScopeRule; why: string }>> = {
    'qodeassist.enabled': { rule: 'narrow', why: 'a project may turn QodeAssist off for itself, but not on where the user turned it off' },
    'qodeassist.tools.disabled': { rule: 'narrow', why: 'a project may turn tools off; the union of every scope\'s list is off, so it cannot re-enable one the user turned off' },
    'qodeassist.tools.terminal.allowedCommands': { rule: 'user', why: 'decides which programs the model may start' },
    'qodeassist.tools.terminal.timeoutSeconds': { rule: 'user', why: 'decides how long a started program may run' },
    'qodeassist.tools.terminal.outputLimit': { rule: 'any', why: 'only how much output the model reads' },
    'qodeassist.build.command': { rule: 'user', why: 'a command line that build_project runs' },
    'qodeassist.tools.allowOutsideWorkspace': { rule: 'user', why: 'opens every file of the machine to the tools' },
    'qodeassist.tools.useGitignore': { rule: 'user', why: 'off shows the tools files the user keeps out of the repository (.env, keys)' },
    'qodeassist.tools.sandboxNetwork': { rule: 'user', why: 'decides whether the commands the model starts reach the network' },
    'qodeassist.skills.enabled': { rule: 'narrow', why: 'a project may turn skills off, not on where the user turned them off' },
    'qodeassist.skills.folders': { rule: 'user', why: 'names folders outside the workspace whose text reaches the model' },
    ...Object.fromEntries(['agentsMd', 'claudeMd', 'geminiMd', 'copilot', 'cursor', 'cline'].map(kind => [`qodeassist.rules.${kind}`,
        { rule: 'narrow' as const, why: 'a project may turn its rules files off, not on where the user turned them off' }])),
    'qodeassist.mcp.server.enabled': { rule: 'user', why: 'opens a port that serves the tools to other programs' },
    'qodeassist.mcp.server.port': { rule: 'user', why: 'where the MCP server listens' },
    'qodeassist.mcp.server.host': { rule: 'user', why: 'an interface other than the loopback exposes the tools to the network' },
    'qodeassist.mcp.server.allowedOrigins': { rule: 'user', why: 'lets web pages of those origins call the tools' },
    'qodeassist.chat.agent': { rule: 'any', why: 'picks among agents the user or a trusted project configured' },
    'qodeassist.chat.sendOnEnter': { rule: 'any', why: 'how the composer sends' },
    'qodeassist.chat.role': { rule: 'any', why: 'a role text of the loaded configuration' },
    'qodeassist.chat.historyLocation': { rule: 'user', why: 'where the user\'s own chats are saved: a repository must not move them into a folder it ships (and commits)' },
    'qodeassist.chat.syncOpenEditors': { rule: 'any', why: 'sends editors the user opened, to the chat\'s agent' },
    'qodeassist.chat.autoCompressPercent': { rule: 'any', why: 'when a summary is made' },
    'qodeassist.completion.enabled': { rule: 'any', why: 'a project may want completion off' },
    'qodeassist.completion.debounceMs': { rule: 'any', why: 'how soon completion asks' },
    'qodeassist.completion.adaptiveDebounce': { rule: 'any', why: 'how soon completion asks' },
    'qodeassist.completion.trigger': { rule: 'user', why: 'hint mode is what a user on a paid API chose: a repository must not make completion ask while typing' },
    'qodeassist.completion.languages': { rule: 'user', why: 'its entries may set a language to ask while typing: a repository must not raise what the user pays for' },
    'qodeassist.completion.minTypedChars': { rule: 'any', why: 'how soon completion asks' },
    'qodeassist.completion.linesBefore': { rule: 'any', why: 'how much of the open file is sent' },
    'qodeassist.completion.linesAfter': { rule: 'any', why: 'how much of the open file is sent' },
    'qodeassist.completion.wholeFile': { rule: 'any', why: 'how much of the open file is sent' },
    'qodeassist.completion.openFilesTokens': { rule: 'any', why: 'how much of other open editors is sent' },
    'qodeassist.completion.contextTokens': { rule: 'user', why: 'more tokens on every request cost more: a repository must not raise what the user pays for (its agents\' completion_context_tokens can, in a trusted workspace)' },
    'qodeassist.completion.disabledLanguages': { rule: 'any', why: 'a project may want completion off for some languages' },
    'qodeassist.nextEdit.enabled': { rule: 'user', why: 'each pause sends a region-sized request to the user\'s provider: only the user turns it on (off by default, so a narrowing rule could never turn it on)' },
    'qodeassist.nextEdit.debounceMs': { rule: 'any', why: 'how soon a next edit is asked' },
    'qodeassist.nextEdit.disabledLanguages': { rule: 'narrow', why: 'a project may turn next edits off for some languages; the union of every scope\'s list is off' },
    'qodeassist.completion.prose': { rule: 'any', why: 'how an answer is cleaned' },
    'qodeassist.completion.lines': { rule: 'any', why: 'one line or several' },
    'qodeassist.refactor.agent': { rule: 'any', why: 'picks among agents the user or a trusted project configured' },
    'qodeassist.refactor.tools': { rule: 'any', why: 'offers tools whose writes and commands still ask' },
    'qodeassist.refactor.thinking': { rule: 'any', why: 'a request option' },
    'qodeassist.refactor.openFilesTokens': { rule: 'any', why: 'how much of other open editors is sent' },
    'qodeassist.acp.registryUrl': { rule: 'user', why: 'decides which agents the view offers to add with their commands: a repository must not offer its own' },
    'qodeassist.logging.level': { rule: 'any', why: 'what the user\'s own output channel shows; keys are always redacted' },
    // A project that needs other limits says so in its own agent files' [limits], which load only in a trusted workspace.
    'qodeassist.limits.connectSeconds': { rule: 'user', why: 'waiting costs nothing, but a limit error sends the user to this setting: a repository\'s value would silently win over theirs' },
    'qodeassist.limits.idleSeconds': { rule: 'user', why: 'waiting costs nothing, but a limit error sends the user to this setting: a repository\'s value would silently win over theirs' },
    'qodeassist.limits.totalSeconds': { rule: 'user', why: 'a longer answer costs more: a repository must not raise what the user pays for' },
    'qodeassist.limits.maxToolRounds': { rule: 'user', why: 'every tool round resends the whole conversation: a repository must not multiply what the user pays for' },
    'qodeassist.limits.maxRecordBytes': { rule: 'user', why: 'what a broken or hostile provider may make this process hold: a repository must not raise it' },
    'qodeassist.limits.maxAnswerBytes': { rule: 'user', why: 'a longer answer costs more: a repository must not raise what the user pays for' }
};

/** The value a rule allows, from one inspection of the setting. */
export function scopedValue<T>(rule: ScopeRule, inspection: PreferenceInspection<T> | undefined, fallback: T): T {
    if (!inspection) {
        return fallback;
    }
    const { defaultValue, globalValue, workspaceValue, workspaceFolderValue } = inspection;
    switch (rule) {
        case 'user':
            return globalValue ?? defaultValue ?? fallback;
        case 'narrow': {
            const values = [defaultValue, globalValue, workspaceValue, workspaceFolderValue].filter(value => value !== undefined) as T[];
            if (values.every(value => Array.isArray(value))) {
                // A list of things turned off: all of them, from every scope.
                return [...new Set((values as unknown as unknown[][]).flat())] as unknown as T;
            }
            // A switch: off in any scope is off.
            return (values.some(value => value === false) ? false : globalValue ?? defaultValue ?? fallback) as T;
        }
        default:
            return inspection.value ?? fallback;
    }
}

/**
 * The PreferenceService QodeAssist's settings are read through: the same service, but `get`
 * of a `user` or `narrow` setting follows its rule. Everything else (changes, set, inspect)
 * is the service itself.
 */
export function scopeGuardedPreferences(service: PreferenceService): PreferenceService {
    return new Proxy(service, {
        get(target, property, receiver) {
            if (property !== 'get') {
                const value = Reflect.get(target, property, receiver);
                return typeof value === 'function' ? value.bind(target) : value;
            }
            return <T>(name: string, fallback?: T, resourceUri?: string) => {
                const rule = PREFERENCE_SCOPE_RULES[name]?.rule;
                return rule && rule !== 'any'
                    ? scopedValue(rule, target.inspect(name, resourceUri) as PreferenceInspection<T> | undefined, fallback as T)
                    : target.get(name, fallback as T & JSONValue, resourceUri);
            };
        }
    });
}

/** `scope: User` in the schema for the user-only settings: Theia's settings editor then offers them in the user tab only. */
export function schemaScopeOf(name: string): PreferenceScope | undefined {
    return PREFERENCE_SCOPE_RULES[name]?.rule === 'user' ? PreferenceScope.User : undefined;
}
