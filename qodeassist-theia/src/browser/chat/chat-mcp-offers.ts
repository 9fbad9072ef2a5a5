import type { McpCatalog, McpContentPart, McpPromptResult } from '../../common/mcp-features-protocol';

/** One MCP entry the composer offers: a resource or template on `@`, a prompt on `/`. */
export type McpOffer =
    | { kind: 'resource'; server: string; uri: string; label: string }
    | { kind: 'template'; server: string; name: string; label: string; arguments: Array<{ name: string; description?: string; required: boolean }> }
    | { kind: 'prompt'; server: string; name: string; label: string; arguments: Array<{ name: string; description?: string; required: boolean }> };

/**
 * What the composer shows of the workspace's MCP servers: `@<server>:<uri>` for each resource and
 * template (a template's arguments are asked when it is chosen), `/mcp.<server>.<prompt>` for each
 * prompt. The `value` is what the suggestion list shows and `offerFor` takes back.
 */
export class ChatMcpOffers {
    private catalog: McpCatalog = { resources: [], templates: [], prompts: [] };
    private readonly byValue = new Map<string, McpOffer>();

    set(catalog: McpCatalog): void {
        this.catalog = catalog;
        this.byValue.clear();
        for (const resource of catalog.resources) {
            this.byValue.set(`${resource.server}:${resource.uri}`, { kind: 'resource', server: resource.server, uri: resource.uri, label: resource.title ?? resource.name });
        }
        for (const template of catalog.templates) {
            this.byValue.set(`${template.server}:${template.uriTemplate}`, {
                kind: 'template', server: template.server, name: template.name, label: template.title ?? template.name,
                arguments: template.arguments.map(name => ({ name, required: true }))
            });
        }
        for (const prompt of catalog.prompts) {
            this.byValue.set(prompt.command.slice(1), { kind: 'prompt', server: prompt.server, name: prompt.name, label: prompt.title ?? prompt.description ?? prompt.name, arguments: prompt.arguments });
        }
    }

    /** The resources and templates whose `<server>:<uri>` or name contains the query. */
    mentions(query: string): Array<{ value: string; detail: string }> {
        const needle = query.toLowerCase();
        return [...this.byValue.entries()]
            .filter(([value, offer]) => offer.kind !== 'prompt' && (value.toLowerCase().includes(needle) || offer.label.toLowerCase().includes(needle)))
            .map(([value, offer]) => ({ value, detail: offer.kind === 'template' ? `MCP ${offer.label}: asks ${offer.arguments.map(argument => argument.name).join(', ')}` : `MCP ${offer.label}` }));
    }

    /** The prompts whose `mcp.<server>.<prompt>` starts with the query. */
    commands(query: string): Array<{ value: string; detail: string }> {
        return [...this.byValue.entries()]
            .filter(([value, offer]) => offer.kind === 'prompt' && value.startsWith(query))
            .map(([value, offer]) => ({ value, detail: `MCP prompt: ${offer.label}` }));
    }

    offerFor(value: string): McpOffer | undefined {
        return this.byValue.get(value);
    }

    get size(): number {
        return this.catalog.resources.length + this.catalog.templates.length + this.catalog.prompts.length;
    }
}

/** The bytes of a part the server returned, for the composer's upload. */
export function partBytes(part: McpContentPart): Uint8Array {
    const binary = atob(part.base64);
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index++) {
        bytes[index] = binary.charCodeAt(index);
    }
    return bytes;
}

/** What choosing an MCP offer needs of the composer. */
export interface McpOfferHost {
    read(offer: Extract<McpOffer, { kind: 'resource' }>): Promise<McpContentPart[]>;
    readTemplate(offer: Extract<McpOffer, { kind: 'template' }>, values: Record<string, string>): Promise<McpContentPart[]>;
    getPrompt(offer: Extract<McpOffer, { kind: 'prompt' }>, values: Record<string, string>): Promise<McpPromptResult>;
    /** Asks the user for one argument; undefined when the user gave up (nothing is read or inserted then). */
    ask(offer: McpOffer, argument: { name: string; description?: string; required: boolean }): Promise<string | undefined>;
    /** Attaches a part as a file or image would be (size limits, the agent's image capability). */
    attach(part: McpContentPart): Promise<void>;
    /** Puts a prompt's text in place of the `/command` typed. */
    insert(result: McpPromptResult): void;
}

/**
 * Chooses an offer: its arguments are asked one by one (an optional one may be left empty), then a
 * resource is read and attached, a prompt's result inserted with its images and resources attached.
 * False when the user gave up at an argument.
 */
export async function chooseMcpOffer(offer: McpOffer, host: McpOfferHost): Promise<boolean> {
    const values: Record<string, string> = {};
    for (const argument of offer.kind === 'resource' ? [] : offer.arguments) {
        const value = await host.ask(offer, argument);
        if (value === undefined || (argument.required && value === '')) {
            return false;
        }
        if (value !== '') {
            values[argument.name] = value;
        }
    }
    if (offer.kind === 'prompt') {
        const result = await host.getPrompt(offer, values);
        host.insert(result);
        for (const part of result.attachments) {
            await host.attach(part);
        }
        return true;
    }
    const parts = offer.kind === 'resource' ? await host.read(offer) : await host.readTemplate(offer, values);
    for (const part of parts) {
        await host.attach(part);
    }
    return true;
}
