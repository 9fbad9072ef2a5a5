import type { McpConfigIssue, McpConsentDetails, McpServerState, McpSignInResult, McpToolPrompt, PermissionAnswer } from '@qodeassist/core';
import { RpcServer } from '@theia/core/lib/common/messaging/proxy-factory';
import { ChatToolSettings } from './chat-protocol';
import { ToolHostClient } from './tool-host-protocol';

export type { McpConfigIssue, McpConsentDetails, McpServerState, McpSignInResult, McpToolPrompt };

/** The backend route the authorization server sends the browser back to, below the URL the browser uses for the IDE (core's MCP_OAUTH_CALLBACK_PATH). */
export const QODEASSIST_MCP_OAUTH_CALLBACK = '/qodeassist/mcp/oauth/callback';

export const QODEASSIST_MCP_PATH = '/services/qodeassist/mcp';

/** The user's MCP server-mode settings (preferences `qodeassist.mcp.server.*`). */
export interface McpServerSettings {
    enabled: boolean;
    port: number;
    host: string;
    allowedOrigins: string[];
    /** The folder the served tools are confined to. */
    workspacePath?: string;
    tools?: ChatToolSettings;
}

export interface McpServerStatus {
    running: boolean;
    url?: string;
    sseUrl?: string;
    /** Why it is not running although enabled (port taken…). */
    error?: string;
    /** Set only when a token was just created: shown to the user once, never sent again. */
    newToken?: string;
    /** Clients connected now. */
    sessions: number;
    /** The stdio bridge's script, for the snippets. */
    bridgePath: string;
}

export const QodeAssistMcpService = Symbol('QodeAssistMcpService');

export interface QodeAssistMcpService extends RpcServer<QodeAssistMcpClient> {
    /** Starts, restarts or stops the server to match the settings. */
    configureServer(settings: McpServerSettings): Promise<McpServerStatus>;
    serverStatus(): Promise<McpServerStatus>;
    /** A new token replaces the old one at once (connected clients must use the new one); it is returned this one time. */
    rotateToken(): Promise<McpServerStatus>;
    /** The client hub of a workspace: each configured server's state, and problems with the mcp.json files. */
    hubState(workspacePath: string | undefined): Promise<{ servers: McpServerState[]; issues: McpConfigIssue[] }>;
    reconnect(workspacePath: string | undefined, server: string): Promise<void>;
    /**
     * The user allowed a project server to start, having been shown the entry with `fingerprint`.
     * Granted only in a trusted workspace and only if the file's current entry still has that
     * fingerprint (the backend recomputes it); false otherwise, and the UI asks again.
     */
    grantServerConsent(workspacePath: string | undefined, server: string, fingerprint: string): Promise<boolean>;
    /**
     * Starts the OAuth sign-in of an HTTP server: `callbackUrl` is this window's address (origin
     * and path prefix, as the browser reaches the backend) plus QODEASSIST_MCP_OAUTH_CALLBACK.
     * The answer is the page to open in the browser, or the step that failed.
     */
    signIn(workspacePath: string | undefined, server: string, callbackUrl: string): Promise<McpSignInResult>;
    /** Removes the server's tokens and registered client. */
    signOut(workspacePath: string | undefined, server: string): Promise<void>;
}

export interface QodeAssistMcpClient extends ToolHostClient {
    /** A hub's servers or the server mode changed: views showing them refresh. */
    onMcpChanged(): void;
    /** An outside MCP client wants to write or run something in this window's workspace: a modal, plain-text prompt. */
    requestMcpToolPermission(prompt: McpToolPrompt): Promise<PermissionAnswer>;
}
