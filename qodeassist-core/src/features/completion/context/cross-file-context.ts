import { basename } from 'node:path';
import { ResolvedAgent } from '../../../agents/configuration-loader';
import { CompletionInput } from '../../../context/context-assembler';
import { syntheticContext } from '../../../prompt/template-context';
import { ContextSnippetRecord, DefinitionLocation, RecentEdit } from './context-snippet';
import { CompletionContextRetriever } from './context-retriever';
import { ContextFileAccess } from './source-files';

/** Tokens of cross-file context when neither the agent (`completion_context_tokens`) nor the settings say otherwise. */
export const DEFAULT_CONTEXT_BUDGET = 1024;

/** What a completion request may carry beyond its file: the facts the cross-file context is made of. */
export interface CrossFileFacts {
    /** Which workspace files may be read and shown (the tools' roots and ignore rules); without it nothing is read from disk. */
    workspace?: ContextFileAccess;
    /** The IDE's definition providers' answers for identifiers near the cursor (absolute paths, 0-based lines). */
    definitions?: DefinitionLocation[];
    /** Regions edited lately across files, the newest first. */
    recentEdits?: RecentEdit[];
    /** Absolute paths of open and recently used files, most recent first. */
    recentFiles?: string[];
}

export interface CompletionContext {
    repoFiles: NonNullable<CompletionInput['repoFiles']>;
    repoName?: string;
    records: ContextSnippetRecord[];
    elapsedMs: number;
}

const MARKER = 'qodeassist-repo-files-probe';
const rendering = new WeakMap<ResolvedAgent, boolean>();

/**
 * Whether an agent's template sends `ctx.repo_files` (derived from its body, as whether it takes
 * images is): context that would not reach the model is not gathered, nor listed as sent.
 */
export function rendersRepoFiles(agent: ResolvedAgent): boolean {
    let renders = rendering.get(agent);
    if (renders === undefined) {
        try {
            const probe = { ...syntheticContext(), repo_files: [{ path: 'src/probe.ts', content: `export const probe = '${MARKER}';\n`, source: 'definition' }] };
            renders = JSON.stringify(agent.renderBody(probe)).includes(MARKER);
        } catch {
            renders = false;
        }
        rendering.set(agent, renders);
    }
    return renders;
}

/** The agent's own `completion_context_tokens` wins over the setting (a small local model, a large paid one). */
export function contextBudgetFor(agent: ResolvedAgent, setting: number | undefined): number {
    const own = agent.profile?.table?.['completion_context_tokens'];
    return typeof own === 'number' && own >= 0 ? own : setting ?? DEFAULT_CONTEXT_BUDGET;
}

/**
 * The cross-file context of one completion request for its agent: nothing when the agent's
 * template has no place for it or the budget is 0.
 */
export async function completionContextFor(
    retriever: CompletionContextRetriever, agent: ResolvedAgent,
    request: CrossFileFacts & { file: string; language: string; text: string; offset: number; project?: string; openFiles?: Array<{ path: string; content: string }> },
    around: { prefix: string; suffix: string }, budgetSetting: number | undefined, signal?: AbortSignal
): Promise<CompletionContext | undefined> {
    const budget = contextBudgetFor(agent, budgetSetting);
    if (budget <= 0 || !rendersRepoFiles(agent)) {
        return undefined;
    }
    const retrieval = await retriever.retrieve({
        file: request.file, language: request.language, text: request.text, offset: request.offset, around, budget,
        access: request.workspace, definitions: request.definitions, recentEdits: request.recentEdits, recentFiles: request.recentFiles, openFiles: request.openFiles
    }, signal);
    const root = request.workspace?.roots[0];
    return {
        repoFiles: retrieval.repoFiles, repoName: request.project ?? (root ? basename(root) : undefined),
        records: retrieval.records, elapsedMs: retrieval.elapsedMs
    };
}

/** The log's line for a request's context: `definition src/a.ts (parse) ~40, similar src/b.ts ~120`. */
export function describeContext(records: readonly ContextSnippetRecord[]): string {
    return records.map(record => `${record.source} ${record.path}${record.symbol ? ` (${record.symbol})` : ''} ~${record.tokens}`).join(', ');
}
