import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
    ElicitRequestSchema, PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema
} from '@modelcontextprotocol/sdk/types.js';
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
    /** The tool calls running on this server now, newest last: a question shows in the chat of the newest. */
    private readonly running: RunningCall[] = [];
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
            answerElicitation(this.server, request.params, this.host.elicitation, this.running.at(-1), extra.signal));
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
            return await run();
        } finally {
            this.running.splice(this.running.indexOf(call), 1);
        }
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
