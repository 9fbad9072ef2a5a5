import { ChatMode } from '../features/chat/plan-mode';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { ConfigurationProvider, isProjectLayerLoaded } from '../agents/configuration-service';
import { managedAgentRefusal } from '../agents/agent-router';
import { formatManifest } from '../context/context-manifest';
import { languageOfPath } from '../context/languages';
import { messageText } from '../context/conversation-history';
import { PermissionGrant } from '../ports/permission-prompt';
import { FixedPermissionPolicy } from '../tools/fixed-permission-policy';
import { ChatStore } from '../session/chat-store';
import { SessionEvent } from '../session/session-events';
import { QodeAssistRuntime } from '../runtime/qodeassist-runtime';
import { ToolSettings } from '../runtime/request-tools';
import { CancelledError, ErrorInfo } from '../wire/error-info';
import { ChatFeature } from '../features/chat/chat-feature';
import { ChatEvent } from '../features/chat/chat-types';
import { configuredCompletionEngine } from '../features/completion/configured-completion';
import { DEFAULT_COMPLETION_SETTINGS } from '../features/completion/completion-engine';
import { workspaceAccess } from '../features/completion/context/source-files';
import { WorkspaceFiles } from '../tools/workspace-files';
import { runRefactor } from '../features/refactor/refactor-feature';
import { IndentStyle } from '../features/refactor/refactor-prompt';
import { CursorSplit } from './source-position';

/** What every bench command runs on: the run's runtime and configuration, the workspace, and where to print. */
export interface BenchHost {
    runtime: QodeAssistRuntime;
    configurations: ConfigurationProvider;
    workspace: string;
    json: boolean;
    out(line: string): void;
    err(line: string): void;
    /** Cancels on Ctrl+C or --timeout; returns the unsubscribe. */
    onStop(stop: () => void): () => void;
}

/** How a bench run ended: the text to print, or why there is none. */
export type BenchOutcome = { text: string } | { error: ErrorInfo } | { cancelled: true };

/** The tools of `--tools`: the built-in ones with the IDE's default settings, the build command if given. */
export function benchToolSettings(buildCommand: string | undefined): ToolSettings {
    return {
        disabled: [], allowedCommands: [], commandTimeoutSeconds: 60, commandOutputLimit: 30_000,
        buildCommand: buildCommand ?? '', allowOutsideWorkspace: false, useGitignore: true
    };
}

/**
 * `chat`: the IDE's chat feature — agent, role and skills layers, the environment block, the
 * tools and their permission questions (answered from --allow), attachments within the chat's
 * limits — in a chat kept in a temporary folder for the run.
 */
export async function benchChat(host: BenchHost, request: {
    agent: string; message: string; files: string[]; tools?: ToolSettings; allow: PermissionGrant[]; mode?: ChatMode;
}): Promise<BenchOutcome> {
    const folder = mkdtempSync(join(tmpdir(), 'qodeassist-bench-chat-'));
    const permissions = new FixedPermissionPolicy(new Set(request.allow));
    const feature = new ChatFeature({ runtime: host.runtime, configurations: host.configurations, userHome: folder, storeFor: () => new ChatStore(folder) });
    let settle!: (event: SessionEvent) => void;
    const ended = new Promise<SessionEvent>(resolve => { settle = resolve; });
    feature.setHost({
        onEvents: (_chatId, events) => events.forEach(event => printEvent(host, event, settle)),
        onNotice: (_chatId, message) => host.err(message),
        requestToolPermission: (_ownerId, permission) => permissions.ask(permission)
    });
    const { chatId } = await feature.open({ location: 'user' });
    const stopWatching = host.onStop(() => void feature.cancel(chatId));
    try {
        const attachments = await Promise.all(request.files.map(path =>
            feature.attach(chatId, basename(path), mediaTypeOf(path), readFileSync(path))));
        await feature.send(chatId, { text: request.message, attachments }, {
            workspacePath: host.workspace, agent: request.agent, tools: request.tools, offerTools: request.tools !== undefined, mode: request.mode
        });
        const end = await ended;
        if (end.type === 'Finished') {
            const answer = feature.history(chatId).at(-1);
            return { text: answer?.role === 'assistant' ? messageText(answer) : '' };
        }
        return end.type === 'Failed' ? { error: end.error } : { cancelled: true };
    } finally {
        stopWatching();
        await feature.close(chatId);
        await feature.saved();
        feature.dispose();
        rmSync(folder, { recursive: true, force: true });
    }
}

/** `complete`: the IDE's completion engine — context window, cache, the agent's request, early stop and post-processing. */
export async function benchComplete(host: BenchHost, request: { agent: string; path: string; relativePath: string; split: CursorSplit }): Promise<BenchOutcome> {
    const configuration = host.configurations.forWorkspace(host.workspace);
    const completion = configuredCompletionEngine(host.runtime, configuration, {
        settings: () => DEFAULT_COMPLETION_SETTINGS, agent: request.agent, onEvents: events => events.forEach(event => printEvent(host, event, () => undefined))
    });
    const language = languageOfPath(request.path);
    try {
        return await untilStopped(host, async signal => {
            const outcome = await completion.engine.complete({
                file: request.path, relativePath: request.relativePath, language, text: request.split.prefix + request.split.suffix, offset: request.split.prefix.length,
                // Cross-file context from the workspace, as the IDE reads it (ignore rules as the tools apply them).
                workspace: workspaceAccess(new WorkspaceFiles([host.workspace])),
                environment: await host.runtime.environment({ workspace: host.workspace, activeFile: request.path, language })
            }, signal);
            return { text: outcome.text };
        });
    } finally {
        completion.dispose();
    }
}

/** `refactor`: the IDE's quick refactor — its prompt, its session, its cleaning of the answer. */
export async function benchRefactor(host: BenchHost, request: {
    agent: string; path: string; relativePath: string; selection: { start: number; end: number }; instruction: string; tools?: ToolSettings; allow: PermissionGrant[];
}): Promise<BenchOutcome> {
    const configuration = host.configurations.forWorkspace(host.workspace);
    const agent = configuration.current.agents.get(request.agent);
    if (!agent) {
        return { error: { category: 'Config', message: managedAgentRefusal(configuration.current, request.agent) ?? `There is no agent named "${request.agent}".` } };
    }
    const text = readFileSync(request.path, 'utf8');
    const language = languageOfPath(request.path);
    const indent: IndentStyle = { insertSpaces: !/^\t/m.test(text), tabSize: 4 };
    const permissions = new FixedPermissionPolicy(new Set(request.allow));
    const tools = request.tools && agent.enableTools
        ? host.runtime.toolKit({
            host: { requestToolPermission: (_ownerId, permission) => permissions.ask(permission) }, ownerId: 'bench', workspace: host.workspace,
            projectTrusted: isProjectLayerLoaded(host.configurations, host.workspace), settings: request.tools
        })
        : undefined;
    return untilStopped(host, async signal => {
        const result = await runRefactor({
            target: { filePath: request.relativePath, language, text, selection: request.selection, cursor: request.selection.end },
            instruction: request.instruction, indent,
            environment: await host.runtime.environment({ workspace: host.workspace, activeFile: request.path, language })
        }, {
            agent, sessions: host.runtime.sessions(configuration), signal, tools: tools ? { tools: tools.definitions(), executor: tools } : undefined,
            onEvents: events => events.forEach(event => printEvent(host, event, () => undefined))
        });
        return { text: result.text };
    });
}

/** Runs until done, or until Ctrl+C or --timeout stops it (then it was cancelled, not failed). */
async function untilStopped(host: BenchHost, run: (signal: AbortSignal) => Promise<BenchOutcome>): Promise<BenchOutcome> {
    const controller = new AbortController();
    const stopWatching = host.onStop(() => controller.abort());
    try {
        return await run(controller.signal);
    } catch (error) {
        if (error instanceof CancelledError || controller.signal.aborted) {
            return { cancelled: true };
        }
        throw error;
    } finally {
        stopWatching();
    }
}

/** An event as the bench shows it: every event as JSON with --json, else the manifest and tool activity on stderr. */
function printEvent(host: BenchHost, event: ChatEvent, ended: (event: SessionEvent) => void): void {
    if (!('requestId' in event)) {
        // The chat's own events (the user message echoed for other windows): the bench has one window, which typed it.
        return;
    }
    if (host.json) {
        host.out(JSON.stringify(event));
    } else if (event.type === 'Manifest') {
        host.err(formatManifest(event.manifest));
    } else if (event.type === 'ToolCallEnd') {
        host.err(`→ ${event.name} ${JSON.stringify(event.arguments)}`);
    } else if (event.type === 'ToolResult') {
        host.err(`← ${event.name}${event.isError ? ' (error)' : ''}: ${event.content.split('\n')[0].slice(0, 120)}`);
    }
    if (event.type === 'Finished' || event.type === 'Failed' || event.type === 'Cancelled') {
        ended(event);
    }
}

const IMAGE_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp' };

function mediaTypeOf(path: string): string {
    return IMAGE_TYPES[extname(path).toLowerCase()] ?? 'text/plain';
}
