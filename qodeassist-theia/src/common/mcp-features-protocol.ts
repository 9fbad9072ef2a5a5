import type { McpCatalog, McpContentPart, McpElicitationAnswer, McpElicitationRequest, McpFormField, McpFormValue, McpPromptResult } from '@qodeassist/core';
import { RpcServer } from '@theia/core/lib/common/messaging/proxy-factory';

export type { McpCatalog, McpContentPart, McpElicitationAnswer, McpElicitationRequest, McpFormField, McpFormValue, McpPromptResult };

export const QODEASSIST_MCP_FEATURES_PATH = '/services/qodeassist/mcp-features';

export const QodeAssistMcpFeaturesService = Symbol('QodeAssistMcpFeaturesService');

/**
 * What the chat uses of the workspace's MCP servers besides their tools: resources for `@`,
 * prompts for `/`, the workspace folders sent as roots, and the servers' questions (elicitation)
 * shown in this window.
 */
export interface QodeAssistMcpFeaturesService extends RpcServer<QodeAssistMcpFeaturesClient> {
    /**
     * This window shows `workspacePath` with these folders (its roots): the hub's servers get them
     * as roots, and their questions may be shown here. Called again when the folders change.
     */
    watch(workspacePath: string | undefined, folders: string[]): Promise<void>;
    /** The ready servers' resources, resource templates and prompts. */
    catalog(workspacePath: string | undefined): Promise<McpCatalog>;
    /** A listed resource's contents, within the chat's attachment limits (a typed error beyond them). */
    readResource(workspacePath: string | undefined, server: string, uri: string): Promise<McpContentPart[]>;
    /** A template's resource with the user's arguments. */
    readTemplate(workspacePath: string | undefined, server: string, template: string, values: Record<string, string>): Promise<McpContentPart[]>;
    /** A prompt with the user's arguments, as the server returned it. */
    getPrompt(workspacePath: string | undefined, server: string, prompt: string, values: Record<string, string>): Promise<McpPromptResult>;
    /** The server's suggestions for one prompt argument as typed so far (none when it offers no completions). */
    completePromptArgument(workspacePath: string | undefined, server: string, prompt: string, argument: string, value: string, values: Record<string, string>): Promise<string[]>;
    /** The first problem with a form's values, naming the field (core's check, so the form and the hub agree); undefined when they fit. */
    formProblem(fields: McpFormField[], values: Record<string, McpFormValue>): Promise<string | undefined>;
}

export interface QodeAssistMcpFeaturesClient {
    /** A server asks the user something mid-call: a form (or a page to open) in the chat `request.chatId`. */
    requestMcpElicitation(id: string, request: McpElicitationRequest): Promise<McpElicitationAnswer>;
    /** The question is no longer wanted (the turn was stopped, the server withdrew it): the form goes away. */
    withdrawMcpElicitation(id: string): void;
}
