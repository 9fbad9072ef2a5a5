import { EnvFacts, formatFile, formatProject } from '../../context/env-block';
import { QodeAssistRuntime } from '../../runtime/qodeassist-runtime';
import { ChatTurnOptions } from './chat-types';

/** The chat's environment: where it works (a system layer) and the file in focus (a pinned block of the turn). */
export interface ChatEnvironment {
    /** The `env.project` layer: workspace, OS, git branch, build command. Empty without a workspace. */
    project: string;
    /** `Active file: src/a.ts (typescript)`, or empty. */
    file: string;
}

/**
 * The environment block of a chat turn. The project facts change rarely, so they sit in the
 * system prompt after the agent's; the file in focus changes with every editor switch, so it
 * goes with the turn (as a pinned block) and the cached prefix of system prompt and history
 * survives. The build command is told only when the model can run it (`buildOffered`).
 */
export async function chatEnvironment(runtime: QodeAssistRuntime, options: ChatTurnOptions, buildOffered: boolean): Promise<ChatEnvironment> {
    if (!options.workspacePath) {
        return { project: '', file: '' };
    }
    const facts: EnvFacts = await runtime.environment({
        workspace: options.workspacePath, activeFile: options.file, language: options.language, buildCommand: buildOffered ? options.tools?.buildCommand : undefined
    });
    return { project: formatProject({ ...facts, activeFile: undefined, language: undefined }), file: formatFile(facts) };
}
