import { isAbsolute, join } from 'node:path';
import { environmentFacts, formatProject } from '../../context/env-block';
import { ChatTurnOptions } from './chat-types';

/**
 * The chat's `env.project` layer: where the model is working (workspace, OS, branch, build
 * command, the file in focus). Empty without a workspace: a chat about nothing in particular.
 */
export async function chatEnvironmentLayer(options: ChatTurnOptions): Promise<string> {
    if (!options.workspacePath) {
        return '';
    }
    const activeFile = options.file && !isAbsolute(options.file) ? join(options.workspacePath, options.file) : options.file;
    return formatProject(await environmentFacts({
        workspace: options.workspacePath, activeFile, language: options.language, buildCommand: options.tools?.buildCommand
    }));
}
