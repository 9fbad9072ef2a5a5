import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The workspace folders as MCP roots (`file://` URIs), answered to every server that asks
 * `roots/list`; when the folders change, each connected server is told (`roots/list_changed`)
 * and asks again.
 */
export class McpRoots {
    private folders: string[];
    private readonly clients = new Set<Client>();

    constructor(folders: string[] = []) {
        this.folders = unique(folders);
    }

    list(): Array<{ uri: string; name: string }> {
        return this.folders.map(folder => ({ uri: pathToFileURL(folder).href, name: basename(folder) || folder }));
    }

    /** Answers this client's `roots/list` from now on; call before `connect` (the capability is declared by the client options). */
    serve(client: Client): void {
        client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: this.list() }));
        this.clients.add(client);
    }

    forget(client: Client): void {
        this.clients.delete(client);
    }

    /** New workspace folders: the connected servers are notified, once, only when the list really changed. */
    async set(folders: string[]): Promise<void> {
        const next = unique(folders);
        if (next.length === this.folders.length && next.every((folder, index) => folder === this.folders[index])) {
            return;
        }
        this.folders = next;
        await Promise.all([...this.clients].map(client => client.sendRootsListChanged().catch(() => undefined)));
    }
}

function unique(folders: string[]): string[] {
    return [...new Set(folders.map(folder => resolve(folder)))];
}
