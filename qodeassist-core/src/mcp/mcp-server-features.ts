import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
    ElicitRequestSchema, PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema
} from '@modelcontextprotocol/sdk/types.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '../ports/logger';
import { EMPTY_CATALOG, listCatalog, McpCatalog } from './mcp-catalog';
import { answerElicitation, McpElicitationPrompt, RunningCall } from './mcp-elicitation';
import { McpRoots } from './mcp-roots';

/** What the features of every server of a hub share. */
export interface McpFeatureHost {
    roots: McpRoots;
    /** Where servers' questions go; without it each is declined. */
    elicitation?: McpElicitationPrompt;
    logger?: Logger;
}

/**
 * The MCP client's features besides tools for one server: it declares roots (with
 * `listChanged`) and elicitation (form and URL modes), answers `roots/list` and
 * `elicitation/create`, lists the server's resources, templates and prompts, and follows the
 * `list_changed` notifications for tools, prompts and resources without reconnecting.
 */
export class McpServerFeatures {
    catalog: McpCatalog = EMPTY_CATALOG;
    /** The tool calls running on this server now, newest last. */
    private readonly running: RunningCall[] = [];
    /** The call whose code is running: what a server's question on that call's own response stream finds. */
    private readonly current = new AsyncLocalStorage<RunningCall>();
    private client: Client | undefined;

    constructor(
        private readonly server: string,
        private readonly host: McpFeatureHost,
        private readonly listMs: number,
        /** Lists the tools again (the connection owns them) and says something changed. */
        private readonly refreshTools: (client: Client) => Promise<void>,
        private readonly changed: () => void
    ) { }

    /** A client that declares these features; its handlers are in place before it connects. */
    newClient(): Client {
        const client = new Client({ name: 'qodeassist', version: '0.1.0' }, { capabilities: { roots: { listChanged: true }, elicitation: { form: {}, url: {} } } });
        this.host.roots.serve(client);
        client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
            answerElicitation(this.server, request.params, this.host.elicitation, this.askingCall(), extra.signal));
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.follow(client, () => this.refreshTools(client)));
        client.setNotificationHandler(PromptListChangedNotificationSchema, () => this.follow(client, () => this.refreshCatalog(client)));
        client.setNotificationHandler(ResourceListChangedNotificationSchema, () => this.follow(client, () => this.refreshCatalog(client)));
        return client;
    }

    /** The client is connected and its tools listed: list the rest. A server whose lists fail keeps its tools, with nothing else offered. */
    async connected(client: Client): Promise<void> {
        this.client = client;
        await this.refreshCatalog(client);
    }

    /** The connection is gone: nothing of it is offered any more. */
    closed(client: Client): void {
        this.host.roots.forget(client);
        if (this.client === client) {
            this.client = undefined;
            this.catalog = EMPTY_CATALOG;
        }
    }

    /** Runs one tool call, known as running while it does (for routing the server's questions to its chat). */
    async track<T>(call: RunningCall, run: () => Promise<T>): Promise<T> {
        this.running.push(call);
        try {
            return await this.current.run(call, run);
        } finally {
            this.running.splice(this.running.indexOf(call), 1);
        }
    }

    /**
     * The call a server's question belongs to. The SDK relates a server request to the client
     * request only on the wire (Streamable HTTP sends it on that request's POST response stream)
     * and tells the handler nothing of it; but it reads that stream in the async context of the
     * `tools/call` that opened it, so the call whose context the handler runs in is the one that
     * asked. Stdio, SSE and the standalone GET stream carry no such relation (their reads began at
     * connect): then the question goes to the newest running call. A context is trusted only while
     * its call still runs, so a transport started inside a call that has ended cannot claim it.
     */
    private askingCall(): RunningCall | undefined {
        const current = this.current.getStore();
        return current && this.running.includes(current) ? current : this.running.at(-1);
    }

    private async refreshCatalog(client: Client): Promise<void> {
        try {
            const catalog = await listCatalog(this.server, client, this.listMs);
            if (this.client === client) {
                this.catalog = catalog;
            }
        } catch (error) {
            this.host.logger?.log('warn', 'qodeassist.mcp', `MCP server ${this.server}: listing its resources and prompts failed: ${error instanceof Error ? error.message : String(error)}`);
        }
    }

    /** A list changed: refresh it, then tell the hub's listeners; only for the client in use. */
    private async follow(client: Client, refresh: () => Promise<void>): Promise<void> {
        if (this.client !== client) {
            return;
        }
        await refresh();
        this.changed();
    }
}
