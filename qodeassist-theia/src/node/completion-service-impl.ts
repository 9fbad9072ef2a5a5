import {
    CancelledError, CompletionEngine, configuredCompletionEngine, ConfigurationService, languageOfPath, LaunchStatus, QodeAssistRuntime, toErrorInfo, WorkspaceFiles,
    workspaceAccess
} from '@qodeassist/core';
import { inject, injectable } from '@theia/core/shared/inversify';
import { CompletionAnswer, CompletionQuery, NextEditAnswer, NextEditQuery, QodeAssistCompletionClient, QodeAssistCompletionService } from '../common/completion-protocol';
import { NextEditService } from './next-edit-service';
import { shareableOpenFiles } from './open-files';
import { QodeAssistConfiguration } from './backend-symbols';
import { ConfigurationProvider } from './workspace-configurations';
import { QodeAssistConnectionRuntime } from './connection-runtime';

/** Files larger than this are not sent to a model for completion. */
const MAX_FILE_CHARS = 1_000_000;

/** Code completion for one frontend connection: one engine (cache, request under way) per workspace configuration. */
@injectable()
export class QodeAssistCompletionServiceImpl implements QodeAssistCompletionService {
    private readonly engines = new Map<ConfigurationService, { engine: CompletionEngine; dispose(): void }>();
    private readonly running = new Map<number, AbortController>();

    private client: QodeAssistCompletionClient | undefined;
    /** Providers whose start this window's status bar shows: it is told how each start ends. */
    private readonly shownStarts = new Set<string>();
    private readonly stopLaunchStatus: () => void;
    private readonly nextEdits: NextEditService;

    constructor(
        @inject(QodeAssistConnectionRuntime) private readonly runtime: QodeAssistRuntime,
        @inject(QodeAssistConfiguration) private readonly configurations: ConfigurationProvider
    ) {
        // "starting Ollama…" in the completion status: a completion of this window waits for a server QodeAssist starts ([launch]).
        this.stopLaunchStatus = runtime.launcher.onStatus(status => this.tellLaunch(status));
        this.nextEdits = new NextEditService(runtime, configurations);
    }

    setClient(client: QodeAssistCompletionClient | undefined): void {
        this.client = client;
    }

    /** A start is shown while a completion of this window runs; its end is shown wherever its start was. */
    private tellLaunch(status: LaunchStatus): void {
        if (status.state === 'starting') {
            if (this.running.size === 0 || this.shownStarts.has(status.provider)) {
                return;
            }
            this.shownStarts.add(status.provider);
        } else if (!this.shownStarts.delete(status.provider)) {
            return;
        }
        // Over RPC the call is a promise; a window that went away hears nothing.
        Promise.resolve().then(() => this.client?.onLaunchStatus(status)).catch(() => undefined);
    }

    async complete(query: CompletionQuery): Promise<CompletionAnswer> {
        const started = Date.now();
        const elapsed = () => Date.now() - started;
        if (query.text.length > MAX_FILE_CHARS) {
            return { text: '', skipped: `the file has more than ${MAX_FILE_CHARS.toLocaleString('en')} characters`, elapsedMs: elapsed() };
        }
        const files = query.workspacePath ? this.filesOf(query.workspacePath, query.settings.useGitignore) : undefined;
        if (files && this.ignored(files, query.file)) {
            return { text: '', skipped: `${query.relativePath} is excluded by .qodeassistignore or .gitignore`, elapsedMs: elapsed() };
        }
        const controller = new AbortController();
        this.running.set(query.id, controller);
        // A start already under way (for a chat, or another window) is one this completion may wait for too.
        this.runtime.launcher.startingNow.forEach(status => this.tellLaunch(status));
        try {
            const service = this.configurations.forWorkspace(query.workspacePath);
            // Without a language extension the editor says plaintext; the file name still tells the model more.
            const language = query.language === 'plaintext' ? languageOfPath(query.file) : query.language;
            const engine = this.engineFor(service, query);
            const where = { file: query.file, relativePath: query.relativePath, language, text: query.text, offset: query.offset, project: query.project };
            if (query.reuseOnly) {
                const reused = await engine.reuse(where, controller.signal);
                return reused ? { text: reused.text, source: reused.source, agent: reused.agent ?? this.agentOf(query.file), language, elapsedMs: elapsed() } : { text: '', language, elapsedMs: elapsed() };
            }
            const outcome = await engine.complete({
                ...where, openFiles: shareableOpenFiles(files, query.openFiles),
                // Cross-file context: the files it reads and shows are the tools' (roots, links, ignore rules); none without a workspace.
                workspace: files ? workspaceAccess(files) : undefined, definitions: query.definitions, recentEdits: query.recentEdits, recentFiles: query.recentFiles,
                environment: query.workspacePath ? await this.runtime.environment({ workspace: query.workspacePath }) : undefined
            }, controller.signal);
            if (outcome.agent) {
                this.rememberAgent(query.file, outcome.agent);
            }
            return { text: outcome.text, source: outcome.source, agent: outcome.agent ?? this.agentOf(query.file), language, elapsedMs: elapsed(), context: outcome.context };
        } catch (error) {
            if (error instanceof CancelledError || controller.signal.aborted) {
                return { text: '', cancelled: true, elapsedMs: elapsed() };
            }
            return { text: '', error: toErrorInfo(error), elapsedMs: elapsed() };
        } finally {
            this.running.delete(query.id);
        }
    }

    async cancel(id: number): Promise<void> {
        this.running.get(id)?.abort();
    }

    nextEdit(query: NextEditQuery): Promise<NextEditAnswer> {
        return this.nextEdits.nextEdit(query);
    }

    async cancelNextEdit(id: number): Promise<void> {
        this.nextEdits.cancel(id);
    }

    dispose(): void {
        this.stopLaunchStatus();
        this.nextEdits.dispose();
        for (const controller of this.running.values()) {
            controller.abort();
        }
        this.running.clear();
        for (const engine of this.engines.values()) {
            engine.dispose();
        }
        this.engines.clear();
    }

    private filesOf(workspacePath: string, useGitignore: boolean): WorkspaceFiles | undefined {
        try {
            return new WorkspaceFiles([workspacePath], { useGitignore });
        } catch {
            return undefined;
        }
    }

    private ignored(files: WorkspaceFiles, path: string): boolean {
        try {
            return files.isIgnored(files.resolve(path));
        } catch {
            // A link leading out of the workspace or nowhere: its text is not for the model either.
            return true;
        }
    }

    /** The engine of a configuration; its settings come from the query being served. */
    private engineFor(service: ConfigurationService, query: CompletionQuery): CompletionEngine {
        this.current = query;
        let engine = this.engines.get(service);
        if (!engine) {
            engine = configuredCompletionEngine(this.runtime, service, {
                settings: () => {
                    const settings = this.current!.settings;
                    return {
                        context: { linesBefore: settings.linesBefore, linesAfter: settings.linesAfter, wholeFile: settings.wholeFile },
                        postprocess: { prose: settings.prose, lines: settings.lines },
                        openFilesBudget: settings.openFilesBudget,
                        contextBudget: settings.contextTokens
                    };
                }
            });
            this.engines.set(service, engine);
        }
        return engine.engine;
    }

    private current: CompletionQuery | undefined;

    /**
     * The agent whose answers for a file are cached (the roster picks per file, and the cache empties when the configuration
     * changes): a cached suggestion is credited to it in the acceptance figures. Bounded, oldest forgotten first.
     */
    private readonly agents = new Map<string, string>();

    private rememberAgent(file: string, agent: string): void {
        this.agents.delete(file);
        this.agents.set(file, agent);
        if (this.agents.size > 500) {
            this.agents.delete(this.agents.keys().next().value as string);
        }
    }

    private agentOf(file: string): string | undefined {
        return this.agents.get(file);
    }
}
