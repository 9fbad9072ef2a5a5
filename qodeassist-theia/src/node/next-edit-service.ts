import {
    CancelledError, configuredNextEditEngine, ConfigurationService, languageOfPath, NextEditEngine, QodeAssistRuntime, toErrorInfo, WorkspaceFiles
} from '@qodeassist/core';
import { NextEditAnswer, NextEditQuery } from '../common/completion-protocol';
import { ConfigurationProvider } from './backend-symbols';

/** Files larger than this are not sent to a model for a next edit (the completion's own cap). */
const MAX_FILE_CHARS = 1_000_000;

/**
 * Next edit suggestions for one frontend connection: one engine per workspace configuration,
 * under the completion's rules — a file the ignore rules hide, or one too large, is never sent,
 * and the configuration (project layer only when trusted) comes from the same provider.
 */
export class NextEditService {
    private readonly engines = new Map<ConfigurationService, NextEditEngine>();
    private readonly running = new Map<number, AbortController>();

    constructor(private readonly runtime: QodeAssistRuntime, private readonly configurations: ConfigurationProvider) { }

    async nextEdit(query: NextEditQuery): Promise<NextEditAnswer> {
        const started = Date.now();
        const answer = (fields: Partial<NextEditAnswer>): NextEditAnswer => ({ edits: [], version: query.version, ...fields, elapsedMs: Date.now() - started });
        if (query.text.length > MAX_FILE_CHARS || query.previous.length > MAX_FILE_CHARS) {
            return answer({ skipped: `the file has more than ${MAX_FILE_CHARS.toLocaleString('en')} characters` });
        }
        if (query.workspacePath && ignored(query.workspacePath, query.useGitignore, query.file)) {
            return answer({ skipped: `${query.relativePath} is excluded by .qodeassistignore or .gitignore` });
        }
        const controller = new AbortController();
        this.running.set(query.id, controller);
        try {
            const engine = this.engineFor(this.configurations.forWorkspace(query.workspacePath));
            const language = query.language === 'plaintext' ? languageOfPath(query.file) : query.language;
            const suggestion = await engine.suggest({
                file: query.file, relativePath: query.relativePath, language, text: query.text, offset: query.offset,
                previous: query.previous, version: query.version, project: query.project
            }, controller.signal);
            return answer({
                edits: suggestion.edits, regionStart: suggestion.regionStart, regionEnd: suggestion.regionEnd, regionText: suggestion.regionText, agent: suggestion.agent
            });
        } catch (error) {
            if (error instanceof CancelledError || controller.signal.aborted) {
                return answer({ cancelled: true });
            }
            return answer({ error: toErrorInfo(error) });
        } finally {
            this.running.delete(query.id);
        }
    }

    cancel(id: number): void {
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
        this.engines.clear();
    }

    private engineFor(configuration: ConfigurationService): NextEditEngine {
        let engine = this.engines.get(configuration);
        if (!engine) {
            engine = configuredNextEditEngine(this.runtime, configuration);
            this.engines.set(configuration, engine);
        }
        return engine;
    }
}

/** Hidden by .qodeassistignore (or .gitignore), or reached through a link out of the workspace: its text is not for the model. */
function ignored(workspacePath: string, useGitignore: boolean, path: string): boolean {
    try {
        const files = new WorkspaceFiles([workspacePath], { useGitignore });
        return files.isIgnored(files.resolve(path));
    } catch {
        return true;
    }
}
