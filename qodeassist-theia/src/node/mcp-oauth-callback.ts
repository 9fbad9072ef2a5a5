import { MCP_OAUTH_CALLBACK_PATH, McpCallbackResult } from '@qodeassist/core';
import { BackendApplicationContribution } from '@theia/core/lib/node/backend-application';
import { inject, injectable } from '@theia/core/shared/inversify';
import type { Application, Request, Response } from '@theia/core/shared/express';
import { McpHubs } from './mcp-service-impl';

/**
 * The route the authorization server sends the user's browser back to after an MCP server's
 * sign-in (`<the IDE's URL>/qodeassist/mcp/oauth/callback?code=…&state=…`): McpOAuth checks
 * the state, exchanges the code and the server reconnects; the tab says what happened. The
 * page keeps its address (which holds the code) from other sites: no referrer, no cache, no
 * script, nothing loaded.
 */
@injectable()
export class McpOAuthCallback implements BackendApplicationContribution {
    constructor(@inject(McpHubs) private readonly hubs: McpHubs) { }

    configure(app: Application): void {
        app.get(MCP_OAUTH_CALLBACK_PATH, (request, response) => void this.handle(request, response));
    }

    async handle(request: Pick<Request, 'query'>, response: Pick<Response, 'status' | 'set' | 'send'>): Promise<void> {
        const query = Object.fromEntries(Object.entries(request.query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
        const result: McpCallbackResult = this.hubs.oauth
            ? await this.hubs.oauth.finish(query).catch(error => ({ status: 'failed' as const, step: 'token exchange' as const, message: error instanceof Error ? error.message : String(error) }))
            : { status: 'failed', step: 'authorization', message: 'MCP sign-in is not available in this backend' };
        response.status(result.status === 'signed-in' ? 200 : 400).set({
            'Content-Type': 'text/html; charset=utf-8',
            'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
            'Referrer-Policy': 'no-referrer',
            'Cache-Control': 'no-store',
            'X-Content-Type-Options': 'nosniff'
        }).send(callbackPage(result));
    }
}

/** The tab's text: signed in (close it), or the step that failed and why. */
export function callbackPage(result: McpCallbackResult): string {
    const title = result.status === 'signed-in'
        ? `Signed in to ${result.server}`
        : `Sign-in${result.server ? ` to ${result.server}` : ''} failed at ${result.step}`;
    const body = result.status === 'signed-in'
        ? 'QodeAssist connects to the MCP server now. You can close this tab.'
        : `${result.message}. Close this tab and use Sign in in the QodeAssist configuration view to try again.`;
    return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head>`
        + `<body style="font-family: sans-serif; margin: 3em"><h1 data-result="${result.status}">${escape(title)}</h1><p>${escape(body)}</p></body></html>`;
}

function escape(text: string): string {
    return text.replace(/[&<>"']/g, char => `&#${char.charCodeAt(0)};`);
}
