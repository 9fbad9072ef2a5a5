import { createPreferenceProxy, PreferenceContribution, PreferenceProxy, PreferenceSchema, PreferenceService } from '@theia/core';
import { interfaces } from '@theia/core/shared/inversify';
import type { RulesKind, RulesSettings } from '@qodeassist/core';
import { ChatSkillSettings, ChatToolSettings } from '../common/chat-protocol';
import type { LimitOverrides } from '../common/config-protocol';
import { QodeAssistLogLevel } from '../common/log-protocol';
import { schemaScopeOf, scopeGuardedPreferences } from './preference-scopes';

/** Each kind of repository rules file and its on/off setting (the compiler checks every kind core reads has one). */
export const RULES_PREFERENCES = {
    agents: { key: 'qodeassist.rules.agentsMd', files: 'AGENTS.md files (the root one and those above the files a turn touches)' },
    claude: { key: 'qodeassist.rules.claudeMd', files: 'CLAUDE.md files' },
    gemini: { key: 'qodeassist.rules.geminiMd', files: 'GEMINI.md files' },
    copilot: { key: 'qodeassist.rules.copilot', files: '.github/copilot-instructions.md and .github/instructions/*.instructions.md (by applyTo)' },
    cursor: { key: 'qodeassist.rules.cursor', files: '.cursor/rules/*.mdc (alwaysApply or matching globs)' },
    cline: { key: 'qodeassist.rules.cline', files: '.clinerules (a file or a folder)' }
} as const satisfies Record<RulesKind, { key: string; files: string }>;

export const QodeAssistPreferenceSchema: PreferenceSchema = {
    properties: {
        'qodeassist.enabled': {
            type: 'boolean', default: true,
            description: 'QodeAssist in this project: off stops completion, chat sends, refactors and the MCP server (set it in the workspace settings to turn one project off). The IDE-wide AI switch (ai-features.AiEnable.enableAI) is respected too.'
        },
        'qodeassist.chat.agent': {
            type: 'string',
            default: '',
            description: 'The agent that answers in chat. Empty: the first agent of the [chat] roster (.qodeassist/agents/rosters.toml) whose match rules fit.'
        },
        'qodeassist.tools.disabled': {
            type: 'array', items: { type: 'string' }, default: [],
            description: 'Tools the agents may not use, by name (read_file, list_project_files, find_file, search_project, create_file, edit_file, execute_terminal_command, build_project, get_diagnostics, todo, load_skill).'
        },
        'qodeassist.tools.terminal.allowedCommands': {
            type: 'array', items: { type: 'string' }, default: [],
            description: 'Programs execute_terminal_command may start (the first word of a command). Empty: a built-in list for the OS (git, npm, node, make, ls, cat, …). Commands never run through a shell.'
        },
        'qodeassist.tools.terminal.timeoutSeconds': {
            type: 'number', default: 60, minimum: 1, maximum: 1800,
            description: 'Longest execute_terminal_command may run before it is stopped, in seconds.'
        },
        'qodeassist.tools.terminal.outputLimit': {
            type: 'number', default: 30000, minimum: 1000,
            description: 'Most characters of command output the model gets; longer output keeps its beginning and end.'
        },
        'qodeassist.build.command': {
            type: 'string', default: '',
            description: 'The command build_project runs in the workspace folder, e.g. "npm run build". Empty: the build_project tool is not offered.'
        },
        'qodeassist.tools.allowOutsideWorkspace': {
            type: 'boolean', default: false,
            description: 'Let tools read and write files outside the workspace folder. Off: every path is confined to the workspace.'
        },
        'qodeassist.tools.useGitignore': {
            type: 'boolean', default: true,
            description: 'Hide files matched by .gitignore from the tools, in addition to .qodeassistignore.'
        },
        'qodeassist.tools.sandboxNetwork': {
            type: 'boolean', default: true,
            description: 'Network for the commands execute_terminal_command and build_project start inside their sandbox (bubblewrap, on Linux). Off: they run without network (no package downloads, no services).'
        },
        'qodeassist.chat.sendOnEnter': {
            type: 'boolean',
            default: true,
            description: 'Enter sends the message and Shift+Enter inserts a new line; when off, Ctrl+Enter sends.'
        },
        'qodeassist.chat.role': {
            type: 'string', default: '',
            description: 'The role new chats start with (developer, reviewer, architect, tester, refactorer, or one from .qodeassist/roles). Empty: none.'
        },
        'qodeassist.chat.historyLocation': {
            type: 'string', enum: ['workspace', 'user'], default: 'workspace',
            description: 'Where chats are saved: the workspace\'s .qodeassist/chats folder, or ~/.qodeassist/chats for the user.'
        },
        'qodeassist.chat.syncOpenEditors': {
            type: 'boolean', default: false,
            description: 'Link every open editor to the chat: their current text goes with each message.'
        },
        'qodeassist.completion.enabled': {
            type: 'boolean', default: true,
            description: 'Suggest code as ghost text while typing (Tab accepts, Ctrl+Right the next word, Ctrl+Alt+Right the next line, Alt+\\ asks now).'
        },
        'qodeassist.completion.debounceMs': {
            type: 'number', default: 350, minimum: 0, maximum: 5000,
            description: 'Pause after typing before a completion is asked for, in milliseconds. With adaptiveDebounce on, it applies until your typing rhythm is known (nine keystrokes in a row).'
        },
        'qodeassist.completion.adaptiveDebounce': {
            type: 'boolean', default: true,
            description: 'Follow your typing rhythm: the pause is 1.5 × your 75th-percentile gap between keys, within 100–600 ms, and a fresh line or `{ ( , = [ ; :` asks once your typing paused (2 × your median gap, at least 60 ms). No context asks inside a burst of typing. Off: debounceMs, and those contexts still wait for the pause (at most debounceMs).'
        },
        'qodeassist.completion.trigger': {
            type: 'string', enum: ['automatic', 'hint'], default: 'automatic',
            enumDescriptions: [
                'Ask while typing (after a pause; sooner on a fresh line or after { ( , = [ ; :).',
                'For paid APIs: ask only on QodeAssist: Suggest Completion (Alt+\\) or after a pause of at least 600 ms on a fresh line or after { ( , = [ ; :.'
            ],
            description: 'When completion asks the model. Answers already paid for (the cache, a request the text you type runs into) show in both modes.'
        },
        'qodeassist.completion.languages': {
            type: 'object', default: {},
            additionalProperties: { type: ['string', 'boolean'], enum: ['automatic', 'hint', 'off', false, true] },
            description: 'The trigger per language id, winning over qodeassist.completion.trigger and disabledLanguages, e.g. {"markdown": "off", "python": "hint"} (false: off).'
        },
        'qodeassist.completion.minTypedChars': {
            type: 'number', default: 1, minimum: 1, maximum: 50,
            description: 'Characters to type since the last suggestion before asking again on a pause (a fresh line or an opening bracket asks without it, and sooner).'
        },
        'qodeassist.completion.linesBefore': {
            type: 'number', default: 50, minimum: 0, description: 'Lines above the cursor the model sees.'
        },
        'qodeassist.completion.linesAfter': {
            type: 'number', default: 30, minimum: 0, description: 'Lines below the cursor the model sees.'
        },
        'qodeassist.completion.wholeFile': {
            type: 'boolean', default: false, description: 'Send the whole file instead of the lines around the cursor.'
        },
        'qodeassist.completion.openFilesTokens': {
            type: 'number', default: 0, minimum: 0,
            description: 'Tokens of other open editors\' text to add as context (for instruct agents). 0: none.'
        },
        'qodeassist.completion.contextTokens': {
            type: 'number', default: 1024, minimum: 0,
            description: 'Tokens of cross-file context a completion sends: definitions of the symbols around the cursor, recently edited code, similar code '
                + 'from open files. For agents whose template renders it (repository formats of Qwen2.5-Coder, StarCoder2, Codestral, llama.cpp, instruct agents); '
                + 'an agent\'s own completion_context_tokens wins. 0: none.'
        },
        'qodeassist.completion.disabledLanguages': {
            type: 'array', items: { type: 'string' }, default: [],
            description: 'Language ids without completion, e.g. ["markdown", "plaintext"] (files of an editor without a language extension are plaintext).'
        },
        'qodeassist.completion.prose': {
            type: 'string', enum: ['drop', 'comment'], default: 'drop',
            description: 'Explanations a chat model writes around its code: dropped, or kept as comments.'
        },
        'qodeassist.completion.lines': {
            type: 'string', enum: ['auto', 'single', 'multi'], default: 'auto',
            description: 'auto: one line when the cursor is inside a line, several otherwise.'
        },
        'qodeassist.nextEdit.enabled': {
            type: 'boolean', default: false,
            description: 'Next edit suggestions: after an edit pauses, the recent edits and the code around the cursor go to the [next_edit] roster\'s agent, and the edit it predicts is shown where it applies (Tab jumps there, Tab again applies, Esc dismisses). Off by default: each pause sends a request as large as the region.'
        },
        'qodeassist.nextEdit.debounceMs': {
            type: 'number', default: 600, minimum: 100, maximum: 10000,
            description: 'Pause after an edit before a next edit is asked for, in milliseconds.'
        },
        'qodeassist.nextEdit.disabledLanguages': {
            type: 'array', items: { type: 'string' }, default: [],
            description: 'Language ids without next edit suggestions, e.g. ["markdown", "plaintext"].'
        },
        'qodeassist.chat.autoCompressPercent': {
            type: 'number', default: 0, minimum: 0, maximum: 100,
            description: 'Summarize the chat automatically before a send that would fill more than this percentage of the agent\'s context. 0: never; the Summarize button is always there.'
        },
        'qodeassist.refactor.agent': {
            type: 'string', default: '',
            description: 'The agent that refactors. Empty: the first agent of the [refactor] roster whose match rules fit the file. The refactor input can override it per run.'
        },
        'qodeassist.refactor.tools': {
            type: 'boolean', default: false,
            description: 'Offer the project tools to the refactor agent by default. Tools that write or run something ask first, as in the chat.'
        },
        'qodeassist.refactor.thinking': {
            type: 'boolean', default: false,
            description: 'Ask the refactor agent to think first by default (agents whose request templates support it).'
        },
        'qodeassist.mcp.server.enabled': {
            type: 'boolean', default: false,
            description: 'Serve the QodeAssist tools to other MCP clients (Claude Desktop, Claude Code, VS Code) over Streamable HTTP and HTTP+SSE. They need the token shown when the server starts; write and execute tools ask you first.'
        },
        'qodeassist.mcp.server.port': {
            type: 'number', default: 7717, minimum: 0, maximum: 65535,
            description: 'Port of the MCP server (0: any free port).'
        },
        'qodeassist.mcp.server.host': {
            type: 'string', default: '127.0.0.1',
            description: 'Interface the MCP server listens on. Keep the loopback address unless other machines must reach it; the token is then all that protects your tools.'
        },
        'qodeassist.mcp.server.allowedOrigins': {
            type: 'array', items: { type: 'string' }, default: [],
            description: 'Browser origins allowed to call the MCP server besides its own (requests from other origins are refused against DNS rebinding).'
        },
        'qodeassist.skills.enabled': {
            type: 'boolean', default: true,
            description: 'Offer skills (SKILL.md folders) in the chat: their catalog in the prompt, the load_skill tool and the / picker.'
        },
        'qodeassist.skills.folders': {
            type: 'array', items: { type: 'string' }, default: [],
            description: 'More folders holding <skill>/SKILL.md, besides .qodeassist/skills and .claude/skills of the project and of your home.'
        },
        ...Object.fromEntries(Object.entries(RULES_PREFERENCES).map(([kind, { key, files }]) => [key, {
            type: 'boolean', default: true,
            description: `In a trusted workspace, put the repository's ${files} into the chat's prompt (${kind} rules files). Read again at every send.`
        }])),
        'qodeassist.acp.registryUrl': {
            type: 'string', default: 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json',
            description: 'The ACP registry whose agents the configuration view offers (https, or http on this machine). Asked with a short timeout when the view opens; empty, or unreachable: the snapshot bundled with QodeAssist (or the last index fetched).'
        },
        'qodeassist.logging.level': {
            type: 'string', enum: ['off', 'error', 'warn', 'info', 'debug'], default: 'warn',
            description: 'What the QodeAssist output channel shows: failures (warn), every request with its agent and size (info), or also each manifest and request body (debug). Keys are always redacted.'
        },
        'qodeassist.refactor.openFilesTokens': {
            type: 'number', default: 0, minimum: 0,
            description: 'Tokens of other open editors a refactor may read. 0: none.'
        },
        'qodeassist.limits.connectSeconds': {
            type: 'number', default: 0, minimum: 0,
            description: 'Seconds to wait for a provider to start answering (per attempt), for every agent. 0: the agent\'s [limits] connect, or 30.'
        },
        'qodeassist.limits.idleSeconds': {
            type: 'number', default: 0, minimum: 0,
            description: 'Longest silence in the middle of an answer, in seconds, for every agent. 0: the agent\'s [limits] idle, or 120.'
        },
        'qodeassist.limits.totalSeconds': {
            type: 'number', default: 0, minimum: 0,
            description: 'Longest one answer of the model may take, in seconds (each tool round is its own answer), for every agent. 0: the agent\'s [limits] total, or 1800.'
        },
        'qodeassist.limits.maxToolRounds': {
            type: 'number', default: 0, minimum: 0,
            description: 'Tool rounds one request may run before it is stopped, for every agent. 0: the agent\'s [limits] max_tool_rounds, or 30.'
        },
        'qodeassist.limits.maxRecordBytes': {
            type: 'number', default: 0, minimum: 0,
            description: 'Longest one record of an answer (an SSE event, an NDJSON line) may be, in bytes, for every agent. 0: the agent\'s [limits] max_record_bytes, or 8 MiB (8388608).'
        },
        'qodeassist.limits.maxAnswerBytes': {
            type: 'number', default: 0, minimum: 0,
            description: 'Bytes one answer of the model may bring (each tool round is its own answer), for every agent. 0: the agent\'s [limits] max_answer_bytes, or 64 MiB (67108864) for chat and 512 KiB (524288) for completion.'
        }
    }
};

// Settings that grant power are the user's alone: Theia's settings editor offers them in the user tab only.
for (const [name, property] of Object.entries(QodeAssistPreferenceSchema.properties)) {
    const scope = schemaScopeOf(name);
    if (scope !== undefined) {
        property.scope = scope;
    }
}

/** Why QodeAssist must not act now: turned off for this project, or AI turned off in the IDE; undefined when it may. */
export function disabledReason(preferences: QodeAssistPreferences, preferenceService: PreferenceService, activation?: { readonly isActive: boolean }): string | undefined {
    if (!preferences['qodeassist.enabled']) {
        return 'QodeAssist is turned off for this project (qodeassist.enabled).';
    }
    // Theia AI's activation service: the IDE-wide switch as the product defines it (a product may override it).
    if (activation && !activation.isActive) {
        return 'AI features are turned off in the IDE.';
    }
    if (preferenceService.get<boolean>('ai-features.AiEnable.enableAI') === false) {
        return 'AI features are turned off in the IDE (ai-features.AiEnable.enableAI).';
    }
    return undefined;
}

/** The user's tool settings as the backend takes them, for the chat and the refactor alike. */
export function toolSettingsOf(preferences: QodeAssistPreferences): ChatToolSettings {
    return {
        disabled: preferences['qodeassist.tools.disabled'],
        allowedCommands: preferences['qodeassist.tools.terminal.allowedCommands'],
        commandTimeoutSeconds: preferences['qodeassist.tools.terminal.timeoutSeconds'],
        commandOutputLimit: preferences['qodeassist.tools.terminal.outputLimit'],
        buildCommand: preferences['qodeassist.build.command'],
        allowOutsideWorkspace: preferences['qodeassist.tools.allowOutsideWorkspace'],
        useGitignore: preferences['qodeassist.tools.useGitignore'],
        sandboxNetwork: preferences['qodeassist.tools.sandboxNetwork']
    };
}

/** The user's limit settings as the backend takes them: only those set (above 0). */
export function limitOverridesOf(preferences: QodeAssistPreferences): LimitOverrides {
    const settings: Array<[keyof LimitOverrides, number]> = [
        ['connectSeconds', preferences['qodeassist.limits.connectSeconds']],
        ['idleSeconds', preferences['qodeassist.limits.idleSeconds']],
        ['totalSeconds', preferences['qodeassist.limits.totalSeconds']],
        ['maxToolRounds', preferences['qodeassist.limits.maxToolRounds']],
        ['maxRecordBytes', preferences['qodeassist.limits.maxRecordBytes']],
        ['maxAnswerBytes', preferences['qodeassist.limits.maxAnswerBytes']]
    ];
    return Object.fromEntries(settings.filter(([, value]) => typeof value === 'number' && Number.isFinite(value) && value > 0));
}

/** The rules-file kinds the user turned off, as the backend takes them. */
export function rulesSettingsOf(preferences: QodeAssistPreferences): RulesSettings {
    const values = preferences as unknown as Record<string, unknown>;
    return { disabled: (Object.keys(RULES_PREFERENCES) as RulesKind[]).filter(kind => values[RULES_PREFERENCES[kind].key] === false) };
}

/** The user's skill settings as the backend takes them. */
export function skillSettingsOf(preferences: QodeAssistPreferences): ChatSkillSettings {
    return { enabled: preferences['qodeassist.skills.enabled'], folders: preferences['qodeassist.skills.folders'] };
}

export interface QodeAssistConfiguration {
    'qodeassist.enabled': boolean;
    'qodeassist.chat.agent': string;
    'qodeassist.tools.disabled': string[];
    'qodeassist.tools.terminal.allowedCommands': string[];
    'qodeassist.tools.terminal.timeoutSeconds': number;
    'qodeassist.tools.terminal.outputLimit': number;
    'qodeassist.build.command': string;
    'qodeassist.tools.allowOutsideWorkspace': boolean;
    'qodeassist.tools.useGitignore': boolean;
    'qodeassist.tools.sandboxNetwork': boolean;
    'qodeassist.chat.sendOnEnter': boolean;
    'qodeassist.chat.role': string;
    'qodeassist.chat.historyLocation': 'workspace' | 'user';
    'qodeassist.chat.syncOpenEditors': boolean;
    'qodeassist.chat.autoCompressPercent': number;
    'qodeassist.completion.enabled': boolean;
    'qodeassist.completion.debounceMs': number;
    'qodeassist.completion.adaptiveDebounce': boolean;
    'qodeassist.completion.trigger': 'automatic' | 'hint';
    'qodeassist.completion.languages': Record<string, 'automatic' | 'hint' | 'off' | boolean>;
    'qodeassist.completion.minTypedChars': number;
    'qodeassist.completion.linesBefore': number;
    'qodeassist.completion.linesAfter': number;
    'qodeassist.completion.wholeFile': boolean;
    'qodeassist.completion.openFilesTokens': number;
    'qodeassist.completion.contextTokens': number;
    'qodeassist.completion.disabledLanguages': string[];
    'qodeassist.completion.prose': 'drop' | 'comment';
    'qodeassist.completion.lines': 'auto' | 'single' | 'multi';
    'qodeassist.nextEdit.enabled': boolean;
    'qodeassist.nextEdit.debounceMs': number;
    'qodeassist.nextEdit.disabledLanguages': string[];
    'qodeassist.refactor.agent': string;
    'qodeassist.refactor.tools': boolean;
    'qodeassist.refactor.thinking': boolean;
    'qodeassist.refactor.openFilesTokens': number;
    'qodeassist.mcp.server.enabled': boolean;
    'qodeassist.mcp.server.port': number;
    'qodeassist.mcp.server.host': string;
    'qodeassist.mcp.server.allowedOrigins': string[];
    'qodeassist.logging.level': QodeAssistLogLevel;
    'qodeassist.acp.registryUrl': string;
    'qodeassist.skills.enabled': boolean;
    'qodeassist.skills.folders': string[];
    'qodeassist.limits.connectSeconds': number;
    'qodeassist.limits.idleSeconds': number;
    'qodeassist.limits.totalSeconds': number;
    'qodeassist.limits.maxToolRounds': number;
    'qodeassist.limits.maxRecordBytes': number;
    'qodeassist.limits.maxAnswerBytes': number;
}

export const QodeAssistPreferences = Symbol('QodeAssistPreferences');
export type QodeAssistPreferences = PreferenceProxy<QodeAssistConfiguration>;

export function bindQodeAssistPreferences(bind: interfaces.Bind): void {
    bind(QodeAssistPreferences).toDynamicValue(ctx =>
        // Read through the scope rules: a repository's settings cannot widen what the user allowed.
        createPreferenceProxy(scopeGuardedPreferences(ctx.container.get<PreferenceService>(PreferenceService)), QodeAssistPreferenceSchema)).inSingletonScope();
    bind(PreferenceContribution).toConstantValue({ schema: QodeAssistPreferenceSchema });
}
