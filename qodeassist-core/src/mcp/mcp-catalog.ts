import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { ContentBlock, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { ATTACHMENT_LIMITS } from '../protocol';
import { QodeAssistError } from '../wire/error-info';

/** A resource a server lists, as the composer's `@` offers it. */
export interface McpResourceInfo {
    server: string;
    uri: string;
    name: string;
    title?: string;
    description?: string;
    mimeType?: string;
    size?: number;
}

/** A resource template: its URI has `{arguments}` the user fills in before it is read. */
export interface McpResourceTemplateInfo {
    server: string;
    uriTemplate: string;
    name: string;
    title?: string;
    description?: string;
    mimeType?: string;
    arguments: string[];
}

/** A prompt a server offers, as `/mcp.<server>.<prompt>` on the composer's `/`. */
export interface McpPromptInfo {
    server: string;
    name: string;
    /** What the user types: `/mcp.<server>.<prompt>`. */
    command: string;
    title?: string;
    description?: string;
    arguments: Array<{ name: string; description?: string; required: boolean }>;
}

/** What a server listed, refreshed whenever it says its lists changed. */
export interface McpCatalog {
    resources: McpResourceInfo[];
    templates: McpResourceTemplateInfo[];
    prompts: McpPromptInfo[];
}

export const EMPTY_CATALOG: McpCatalog = { resources: [], templates: [], prompts: [] };

/** One piece of what a server returned, ready to attach: its bytes and media type, named after the resource. */
export interface McpContentPart {
    name: string;
    uri?: string;
    mediaType: string;
    /** Base64, as it crosses JSON-RPC. */
    base64: string;
}

/** A prompt's result as the composer takes it: its text in order, and its images and embedded resources as attachments. */
export interface McpPromptResult {
    text: string;
    attachments: McpContentPart[];
}


/** Most entries of one list kept per server: a server decides how much it lists, the composer shows a bounded menu. */
export const MAX_CATALOG_ENTRIES = 1_000;

export function mcpPromptCommand(server: string, prompt: string): string {
    return `/mcp.${server}.${prompt}`;
}

/** Lists what the server's capabilities say it has, following pages up to MAX_CATALOG_ENTRIES. */
export async function listCatalog(server: string, client: Client, timeout: number): Promise<McpCatalog> {
    const capabilities = client.getServerCapabilities() ?? {};
    const [resources, templates, prompts] = await Promise.all([
        capabilities.resources ? pages(cursor => client.listResources(cursor ? { cursor } : undefined, { timeout }).then(page => ({ items: page.resources, next: page.nextCursor }))) : [],
        capabilities.resources ? pages(cursor => client.listResourceTemplates(cursor ? { cursor } : undefined, { timeout }).then(page => ({ items: page.resourceTemplates, next: page.nextCursor }))) : [],
        capabilities.prompts ? pages(cursor => client.listPrompts(cursor ? { cursor } : undefined, { timeout }).then(page => ({ items: page.prompts, next: page.nextCursor }))) : []
    ]);
    return {
        resources: resources.map(resource => ({
            server, uri: resource.uri, name: resource.name, ...optional(resource, ['title', 'description', 'mimeType']),
            ...(typeof resource.size === 'number' ? { size: resource.size } : {})
        })),
        templates: templates.flatMap(template => {
            const args = templateArguments(template.uriTemplate);
            return args ? [{ server, uriTemplate: template.uriTemplate, name: template.name, arguments: args, ...optional(template, ['title', 'description', 'mimeType']) }] : [];
        }),
        prompts: prompts.filter(prompt => /^[A-Za-z0-9_.-]+$/.test(prompt.name)).map(prompt => ({
            server, name: prompt.name, command: mcpPromptCommand(server, prompt.name), ...optional(prompt, ['title', 'description']),
            arguments: (prompt.arguments ?? []).map(argument => ({ name: argument.name, required: argument.required === true, ...optional(argument, ['description']) }))
        }))
    };
}

async function pages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; next?: string }>): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
        const next = await page(cursor);
        items.push(...next.items);
        cursor = next.next;
    } while (cursor && items.length < MAX_CATALOG_ENTRIES);
    return items.slice(0, MAX_CATALOG_ENTRIES);
}

function optional<K extends string>(from: Partial<Record<K, unknown>>, keys: K[]): Partial<Record<K, string>> {
    return Object.fromEntries(keys.filter(key => typeof from[key] === 'string').map(key => [key, from[key]])) as Partial<Record<K, string>>;
}

/** A template's argument names; undefined for one the SDK cannot parse (it is not offered). */
function templateArguments(uriTemplate: string): string[] | undefined {
    try {
        return new UriTemplate(uriTemplate).variableNames;
    } catch {
        return undefined;
    }
}

/** The URI of a template with the user's arguments, each encoded as the template's operator says. */
export function expandTemplate(template: McpResourceTemplateInfo, values: Record<string, string>): string {
    const missing = template.arguments.filter(name => !values[name]);
    if (missing.length > 0) {
        throw new QodeAssistError({ category: 'Validation', message: `The resource "${template.name}" of the MCP server "${template.server}" needs ${missing.map(name => `"${name}"`).join(', ')}; fill them in and attach it again.` });
    }
    return new UriTemplate(template.uriTemplate).expand(values);
}

/**
 * A read resource's contents as attachments, each within the chat's attachment limits (text
 * 512 KB, images 5 MB): a larger part is refused with the size and the limit, like a file.
 */
export function resourceParts(server: string, uri: string, result: ReadResourceResult): McpContentPart[] {
    return result.contents.map((content, index) => {
        const name = resourceName(server, content.uri || uri, result.contents.length > 1 ? index : undefined);
        if ('text' in content && typeof content.text === 'string') {
            return capped({ name, uri: content.uri, mediaType: content.mimeType ?? 'text/plain', base64: Buffer.from(content.text, 'utf8').toString('base64') });
        }
        return capped({ name, uri: content.uri, mediaType: content.mimeType ?? 'application/octet-stream', base64: String((content as { blob?: unknown }).blob ?? '') });
    });
}

function resourceName(server: string, uri: string, index: number | undefined): string {
    // The last segment of the URI, whatever its scheme (`docs://style.md` has no path, only a "host").
    const last = uri.replace(/[?#].*$/, '').split('/').filter(Boolean).at(-1) ?? uri;
    return `${server}:${last}${index === undefined ? '' : ` (${index + 1})`}`;
}

function capped(part: McpContentPart): McpContentPart {
    const bytes = base64Bytes(part.base64);
    const image = part.mediaType.startsWith('image/');
    // The chat's own attachment limits: a part over them is refused here, before it crosses to the window.
    const limit = image ? ATTACHMENT_LIMITS.imageBytes : ATTACHMENT_LIMITS.textBytes;
    if (bytes > limit) {
        throw new QodeAssistError({
            category: 'Validation',
            message: `The MCP resource "${part.name}" is about ${Math.ceil(bytes / 1024)} KB; the chat takes ${image ? 'images' : 'files'} up to ${Math.ceil(limit / 1024)} KB. Attach a smaller resource (a narrower template argument or a page of it).`
        });
    }
    return part;
}

/** How many bytes a base64 text decodes to, without decoding it. */
export function base64Bytes(base64: string): number {
    const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
    return Math.max(0, Math.floor(base64.length * 3 / 4) - padding);
}

/** A prompt's messages as returned: text in order, images, audio and embedded resources as attachments, links as their URI. */
export function promptResult(server: string, prompt: string, result: GetPromptResult): McpPromptResult {
    const texts: string[] = [];
    const attachments: McpContentPart[] = [];
    for (const message of result.messages) {
        const block = message.content as ContentBlock;
        switch (block.type) {
            case 'text':
                texts.push(block.text);
                break;
            case 'image':
            case 'audio':
                attachments.push(capped({ name: `${server}:${prompt} ${block.type} ${attachments.length + 1}`, mediaType: block.mimeType, base64: block.data }));
                break;
            case 'resource':
                attachments.push(...resourceParts(server, block.resource.uri, { contents: [block.resource] }));
                break;
            case 'resource_link':
                texts.push(block.uri);
                break;
        }
    }
    return { text: texts.join('\n\n'), attachments };
}
