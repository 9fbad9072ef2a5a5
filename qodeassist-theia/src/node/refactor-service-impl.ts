import {
    agentChoices, CancelledError, ConfigurationService, explainAuthError, filesWithinBudget, defaultInstructionFolders, InstructionLibrary, InstructionScope, managedAgentRefusal, managedRosterNote, pickAgent,
    QodeAssistError, QodeAssistRuntime, ResolvedAgent, runRefactor, SavedInstruction, SessionEvent, toErrorInfo, WorkspaceFiles
} from '@qodeassist/core';
import { inject, injectable } from '@theia/core/shared/inversify';
import { QodeAssistConnectionRuntime } from './connection-runtime';
import { LatestValueThrottle } from './event-coalescer';
import { AgentChoice } from '../common/chat-protocol';
import { QodeAssistRefactorClient, QodeAssistRefactorService, RefactorAnswer, RefactorProgress, RefactorQuery } from '../common/refactor-protocol';
import { QodeAssistConfiguration, QodeAssistUserHome } from './backend-symbols';
import { ConfigurationProvider, isProjectLayerLoaded } from './workspace-configurations';
import { shareableOpenFiles } from './open-files';

/** Files larger than this are not sent to a model for a refactor. */
const MAX_FILE_CHARS = 1_000_000;

/** Quick refactors for one frontend connection: each runs in a fresh session of the refactor agent. */
@injectable()
export class QodeAssistRefactorServiceImpl implements QodeAssistRefactorService {
    private client: QodeAssistRefactorClient | undefined;
    private readonly running = new Map<string, AbortController>();

    constructor(
        @inject(QodeAssistConnectionRuntime) private readonly runtime: QodeAssistRuntime,
        @inject(QodeAssistConfiguration) private readonly configurations: ConfigurationProvider,
        @inject(QodeAssistUserHome) private readonly userHome: string
    ) { }

    setClient(client: QodeAssistRefactorClient | undefined): void {
        this.client = client;
    }

    async refactor(query: RefactorQuery): Promise<RefactorAnswer> {
        if (this.running.has(query.id)) {
            return { error: { category: 'Validation', message: `A refactor with id ${query.id} is already running.` } };
        }
        const controller = new AbortController();
        this.running.set(query.id, controller);
        // The proposal is the whole replacement so far, and each one costs the view a redraw and a line diff: the newest per interval.
        const proposals = new LatestValueThrottle<string>(text => this.client?.onRefactorProgress(query.id, [{ kind: 'proposal', text }]));
        let agent: ResolvedAgent | undefined;
        try {
            if (query.text.length > MAX_FILE_CHARS) {
                throw new QodeAssistError({ category: 'Validation', message: `The file has more than ${MAX_FILE_CHARS.toLocaleString('en')} characters; select the code in a smaller file.` });
            }
            const files = query.workspacePath ? new WorkspaceFiles([query.workspacePath], { useGitignore: query.toolSettings?.useGitignore ?? true }) : undefined;
            const configurationService = this.configurations.forWorkspace(query.workspacePath);
            agent = this.agentFor(configurationService, query);
            const tools = query.tools && agent.enableTools && query.workspacePath
                ? this.runtime.toolKit({
                    host: this.client, ownerId: query.id, workspace: query.workspacePath, projectTrusted: isProjectLayerLoaded(this.configurations, query.workspacePath),
                    settings: query.toolSettings
                })
                : undefined;
            const result = await runRefactor({
                target: { filePath: query.relativePath, language: query.language, text: query.text, selection: query.selection, cursor: query.cursor },
                instruction: query.instruction, indent: query.indent,
                environment: query.workspacePath ? await this.runtime.environment({
                    workspace: query.workspacePath, activeFile: query.file, language: query.language,
                    // The build command is told only when the model can run it.
                    buildCommand: tools?.definitions().some(tool => tool.name === 'build_project') ? query.toolSettings?.buildCommand : undefined
                }) : undefined,
                openFiles: filesWithinBudget(shareableOpenFiles(files, query.openFiles, query.file), query.openFilesBudget, this.runtime.estimator)
            }, {
                agent, sessions: this.runtime.sessions(configurationService), thinking: query.thinking,
                tools: tools ? { tools: tools.definitions(), executor: tools } : undefined,
                signal: controller.signal,
                onProposal: text => proposals.push(text),
                onEvents: events => this.forward(query.id, events)
            });
            proposals.flush();
            return { text: result.text, agent: result.agent };
        } catch (error) {
            if (error instanceof CancelledError || controller.signal.aborted) {
                return { cancelled: true };
            }
            const info = toErrorInfo(error);
            return { error: agent ? explainAuthError(agent, info) : info };
        } finally {
            proposals.dispose();
            this.running.delete(query.id);
        }
    }

    async cancel(id: string): Promise<void> {
        this.running.get(id)?.abort();
    }

    async listAgents(workspacePath: string | undefined): Promise<AgentChoice[]> {
        return agentChoices(this.configurations.forWorkspace(workspacePath).current, 'refactor', 'all');
    }

    listInstructions(workspacePath: string | undefined): ReturnType<InstructionLibrary['list']> {
        return this.library(workspacePath).list();
    }

    saveInstruction(workspacePath: string | undefined, instruction: { id?: string; name: string; body: string }, scope: InstructionScope): Promise<SavedInstruction> {
        return this.library(workspacePath).save(instruction, scope);
    }

    duplicateInstruction(workspacePath: string | undefined, id: string, scope: InstructionScope): Promise<SavedInstruction> {
        return this.library(workspacePath).duplicate(id, scope);
    }

    deleteInstruction(workspacePath: string | undefined, id: string, scope: InstructionScope): Promise<void> {
        return this.library(workspacePath).delete(id, scope);
    }

    dispose(): void {
        for (const controller of this.running.values()) {
            controller.abort();
        }
        this.running.clear();
        this.client = undefined;
    }

    private library(workspacePath: string | undefined): InstructionLibrary {
        return new InstructionLibrary(defaultInstructionFolders(this.userHome, isProjectLayerLoaded(this.configurations, workspacePath) ? workspacePath : undefined));
    }

    /** The agent the user chose, or the refactor roster's first that fits the file. */
    private agentFor(configurationService: ConfigurationService, query: RefactorQuery): ResolvedAgent {
        const configuration = configurationService.current;
        const agent = query.agent ? configuration.agents.get(query.agent) : pickAgent(configuration, 'refactor', { file: query.relativePath, project: query.project });
        if (agent) {
            return agent;
        }
        throw new QodeAssistError({
            category: 'Config',
            message: query.agent
                ? `${managedAgentRefusal(configuration, query.agent) ?? `There is no agent named "${query.agent}".`} Pick another in the refactor's agent picker.`
                : `No refactor agent is available: the [refactor] roster is empty or none of its agents fits this file.${managedRosterNote(configuration, 'refactor')} Add one to .qodeassist/agents/rosters.toml.`
        });
    }

    private forward(id: string, events: readonly SessionEvent[]): void {
        const progress = events.flatMap((event): RefactorProgress[] => {
            if (event.type === 'RequestStarted') {
                return [{ kind: 'started', agent: event.agent, model: event.model }];
            }
            if (event.type === 'ToolCallStart') {
                return [{ kind: 'tool', callId: event.callId, name: event.name, state: 'running' }];
            }
            if (event.type === 'ToolResult') {
                return [{ kind: 'tool', callId: event.callId, name: event.name, state: event.isError ? 'failed' : 'done' }];
            }
            return [];
        });
        if (progress.length > 0) {
            this.client?.onRefactorProgress(id, progress);
        }
    }
}
