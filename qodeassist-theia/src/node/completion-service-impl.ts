import {
    CancelledError, CompletionEngine, ConfigurationService, configuredAgentResolver, ContentLoader, ContextAssembler, languageOfPath, pickAgent, QodeAssistError,
    SecretsStore, SessionManager, TokenEstimator, toErrorInfo, WorkspaceFiles
} from '@qodeassist/core';
import { inject, injectable, optional } from '@theia/core/shared/inversify';
import { TheiaHostModels } from './theia-host-models';
import { ConnectionLog } from './connection-log';
import { CompletionAnswer, CompletionQuery, QodeAssistCompletionService } from '../common/completion-protocol';
import { shareableOpenFiles } from './open-files';
import { ConfigurationProvider, QodeAssistConfiguration, QodeAssistSecretsStore } from './backend-symbols';

/** Files larger than this are not sent to a model for completion. */
const MAX_FILE_CHARS = 1_000_000;

/** Code completion for one frontend connection: one engine (cache, request under way) per workspace configuration. */
@injectable()
export class QodeAssistCompletionServiceImpl implements QodeAssistCompletionService {
    private readonly engines = new Map<ConfigurationService, CompletionEngine>();
    private readonly running = new Map<number, AbortController>();
    private readonly estimator = new TokenEstimator();
    private readonly stopWatching: Array<() => void> = [];

    constructor(
        @inject(QodeAssistSecretsStore) private readonly secrets: SecretsStore,
        @inject(QodeAssistConfiguration) private readonly configurations: ConfigurationProvider,
        @inject(TheiaHostModels) @optional() private readonly hostModels?: TheiaHostModels,
        @inject(ConnectionLog) @optional() private readonly log?: ConnectionLog
    ) { }

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
        try {
            const service = this.configurations.forWorkspace(query.workspacePath);
            const outcome = await this.engineFor(service, query).complete({
                // Without a language extension the editor says plaintext; the file name still tells the model more.
                file: query.file, relativePath: query.relativePath, language: query.language === 'plaintext' ? languageOfPath(query.file) : query.language,
                text: query.text, offset: query.offset,
                project: query.project, openFiles: shareableOpenFiles(files, query.openFiles)
            }, controller.signal);
            return { text: outcome.text, source: outcome.source, agent: outcome.agent, elapsedMs: elapsed() };
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

    dispose(): void {
        for (const controller of this.running.values()) {
            controller.abort();
        }
        this.running.clear();
        for (const engine of this.engines.values()) {
            engine.cancel();
        }
        for (const stop of this.stopWatching.splice(0)) {
            stop();
        }
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
            const sessions = new SessionManager(configuredAgentResolver(() => service.current, this.secrets),
                { assembler: new ContextAssembler(this.estimator, new ContentLoader()), estimator: this.estimator, hostModels: this.hostModels, logger: this.log }, 1);
            const created = new CompletionEngine({
                sessions, estimator: this.estimator,
                agentFor: request => {
                    const agent = pickAgent(service.current, 'completion', { file: request.relativePath, project: request.project });
                    if (!agent) {
                        throw new QodeAssistError({ category: 'Config', message: 'No completion agent is available: the [completion] roster is empty or none of its agents fits this file. Add one to .qodeassist/agents/rosters.toml.' });
                    }
                    return agent;
                },
                settings: () => {
                    const settings = this.current!.settings;
                    return {
                        context: { linesBefore: settings.linesBefore, linesAfter: settings.linesAfter, wholeFile: settings.wholeFile },
                        postprocess: { prose: settings.prose, lines: settings.lines },
                        openFilesBudget: settings.openFilesBudget
                    };
                }
            });
            this.stopWatching.push(service.onDidChange(() => {
                sessions.clear();
                created.cache.clear();
            }));
            this.engines.set(service, created);
            engine = created;
        }
        return engine;
    }

    private current: CompletionQuery | undefined;
}
