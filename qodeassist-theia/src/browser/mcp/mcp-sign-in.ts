import { MessageService, nls } from '@theia/core';
import { ConfirmDialog } from '@theia/core/lib/browser';
import { Endpoint } from '@theia/core/lib/browser/endpoint';
import { WindowService } from '@theia/core/lib/browser/window/window-service';
import { QODEASSIST_MCP_OAUTH_CALLBACK, QodeAssistMcpService } from '../../common/mcp-protocol';

/**
 * Where the authorization server sends the browser back: the address this window was loaded
 * from (origin and path prefix, as behind Theia Cloud's ingress), then the backend's callback
 * route; in the desktop app, the local backend's address.
 */
export function mcpOAuthCallbackUrl(): string {
    return new Endpoint({ path: QODEASSIST_MCP_OAUTH_CALLBACK }).getRestUrl().toString();
}

export interface McpSignInServices {
    service: QodeAssistMcpService;
    messages: MessageService;
    windows: WindowService;
}

/**
 * Sign in to an HTTP MCP server: the backend discovers and registers and answers with the
 * authorization page; the user is asked "Sign in to <server>" with that page's origin shown,
 * and only their click opens it in a browser tab. A failure says the step it failed at.
 */
export async function signInToMcpServer({ service, messages, windows }: McpSignInServices, workspacePath: string | undefined, server: string): Promise<void> {
    const result = await service.signIn(workspacePath, server, mcpOAuthCallbackUrl());
    if (result.status === 'signed-in') {
        messages.info(nls.localize('qodeassist/mcp/signedIn', 'Signed in to the MCP server "{0}".', server));
        return;
    }
    if (result.status === 'failed') {
        messages.error(nls.localize('qodeassist/mcp/signInFailed', 'Sign-in to the MCP server "{0}" failed at {1}: {2}', server, result.step, result.message));
        return;
    }
    const open = nls.localize('qodeassist/mcp/signInOpen', 'Open sign-in page');
    const confirmed = await new ConfirmDialog({
        title: nls.localize('qodeassist/mcp/signInTitle', 'Sign in to {0}', server),
        msg: nls.localize('qodeassist/mcp/signInMessage',
            'The sign-in page of {0} opens in a new browser tab. After you approve there, the tab comes back to QodeAssist and "{1}" connects. '
            + 'Its tokens are kept in your keyring (or your owner-only secrets file), never in the workspace.', result.authorizationServer, server),
        ok: open
    }).open();
    if (confirmed) {
        windows.openNewWindow(result.authorizationUrl, { external: true });
    }
}
