import {
    CancelledError, configuredNextEditEngine, ConfigurationService, languageOfPath, NextEditEngine, OtherFileEdit, QodeAssistRuntime, toErrorInfo, workspaceAccess, WorkspaceFiles
} from '@qodeassist/core';
import { NextEditAnswer, NextEditQuery } from '../common/completion-protocol';
import { ConfigurationProvider } from './workspace-configurations';

/** Files larger than this are not sent to a model for a next edit (the completion's own cap). */
const MAX_FILE_CHARS = 1_000_000;
/** Other files' edits taken at most, and characters of one file's excerpt: the browser's word is not the bound. */
const MAX_OTHER_FILES = 8;
const MAX_OTHER_EXCERPT_CHARS = 20_000;

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
                previous: query.previous, version: query.version, project: query.project, otherEdits: shareableEdits(query)
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

/**
 * The other files' edits the model may see: in this workspace folder, hidden by no ignore rule (links
 * resolved first), within the bounds. An ignored file's edit never leaves; nor does one outside the
 * workspace, or any without a workspace.
 */
function shareableEdits(query: NextEditQuery): OtherFileEdit[] {
    if (!query.workspacePath || !Array.isArray(query.otherEdits) || query.otherEdits.length === 0) {
        return [];
    }
    let access: ReturnType<typeof workspaceAccess>;
    try {
        access = workspaceAccess(new WorkspaceFiles([query.workspacePath], { useGitignore: query.useGitignore }));
    } catch {
        return [];
    }
    const shareable: OtherFileEdit[] = [];
    for (const edit of query.otherEdits.slice(0, MAX_OTHER_FILES)) {
        if (!wellFormed(edit)) {
            continue;
        }
        const relativePath = edit.path === query.file ? undefined : access.relativePath(edit.path);
        if (relativePath !== undefined) {
            shareable.push({ relativePath, previous: edit.previous, text: edit.text, startLine: edit.startLine, line: edit.line, ageMs: edit.ageMs });
        }
    }
    return shareable;
}

function wellFormed(edit: NonNullable<NextEditQuery['otherEdits']>[number]): boolean {
    const line = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
    return typeof edit.path === 'string' && typeof edit.previous === 'string' && typeof edit.text === 'string'
        && edit.previous.length <= MAX_OTHER_EXCERPT_CHARS && edit.text.length <= MAX_OTHER_EXCERPT_CHARS
        && line(edit.startLine) && line(edit.line) && typeof edit.ageMs === 'number';
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
