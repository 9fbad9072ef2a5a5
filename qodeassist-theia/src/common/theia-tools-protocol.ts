import type { PermissionClass } from '@qodeassist/core';
import { RpcServer } from '@theia/core/lib/common/messaging/proxy-factory';
import { ChatToolSettings } from './chat-protocol';
import { ToolHostClient } from './tool-host-protocol';

export const QODEASSIST_THEIA_TOOLS_PATH = '/services/qodeassist/theia-tools';

/** One QodeAssist tool as Theia AI's tool registry gets it. */
export interface TheiaToolInfo {
    /** QodeAssist's own name (`read_file`, `mcp_<server>_<tool>`). */
    name: string;
    description: string;
    /** JSON Schema of the arguments (an object schema). */
    parameters: Record<string, unknown>;
    permission: PermissionClass;
}

export interface TheiaToolCall {
    /** Theia's id of the call, used to cancel it. */
    id: string;
    name: string;
    /** The arguments as the model sent them: a JSON object, as text. */
    arguments: string;
}

export const QodeAssistTheiaToolsService = Symbol('QodeAssistTheiaToolsService');

/**
 * QodeAssist's ToolKit (built-in tools and the MCP hub's) for Theia AI's own agents. Theia's chat
 * confirms each call before it runs, so the tools do not ask again; writes still go through the
 * editors (the client is the same tool host the chat uses).
 */
export interface QodeAssistTheiaToolsService extends RpcServer<ToolHostClient> {
    tools(workspace: string, settings: ChatToolSettings): Promise<TheiaToolInfo[]>;
    run(workspace: string, settings: ChatToolSettings, call: TheiaToolCall): Promise<{ content: string; isError: boolean }>;
    cancel(callId: string): Promise<void>;
}

export const QODEASSIST_LANGUAGE_MODELS_PATH = '/services/qodeassist/language-models';

export const QodeAssistLanguageModelsService = Symbol('QodeAssistLanguageModelsService');

/** QodeAssist's chat agents as language models in Theia AI's registry, ids `qodeassist/<agent>`. */
export interface QodeAssistLanguageModelsService {
    /** Publishes the [chat] roster of this workspace's configuration (nothing when not enabled) and keeps it current; returns the ids. */
    publish(workspace: string | undefined, enabled: boolean): Promise<string[]>;
}
