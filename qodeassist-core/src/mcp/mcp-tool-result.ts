import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { base64Bytes } from './mcp-catalog';

/**
 * A tool result as the model reads it, with nothing the server returned dropped: text parts as
 * they are; embedded text resources with their URI; resource links with URI, name and media type
 * (the model can name them back for the user to attach); images and audio by type and size (the
 * tool-result channel of the providers carries text); and the structured content as JSON, unless
 * a text part already is that same JSON (what the SDK's servers send beside it).
 */
export function toolResultText(result: Partial<CallToolResult> & { toolResult?: unknown }): string {
    const parts = Array.isArray(result.content) ? result.content as ContentBlock[] : [];
    const texts = parts.map(part => {
        switch (part.type) {
            case 'text': return part.text;
            case 'image': return `[image ${part.mimeType}, ${base64Bytes(part.data)} bytes]`;
            case 'audio': return `[audio ${part.mimeType}, ${base64Bytes(part.data)} bytes]`;
            case 'resource': {
                const resource = part.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
                return typeof resource.text === 'string'
                    ? `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}]\n${resource.text}`
                    : `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}, ${base64Bytes(resource.blob ?? '')} bytes]`;
            }
            case 'resource_link': {
                const details = [part.name && part.name !== part.uri ? `"${part.name}"` : '', part.mimeType ?? '', part.description ?? ''].filter(Boolean).join(', ');
                return `[resource link ${part.uri}${details ? ` (${details})` : ''}]`;
            }
            default: return JSON.stringify(part);
        }
    });
    const structured = result.structuredContent ?? result.toolResult;
    if (structured !== undefined) {
        const json = JSON.stringify(structured);
        if (!texts.some(text => sameJson(text, json))) {
            texts.push(`[structured content]\n${JSON.stringify(structured, undefined, 2)}`);
        }
    }
    return texts.join('\n');
}

function sameJson(text: string, json: string): boolean {
    try {
        return JSON.stringify(JSON.parse(text)) === json;
    } catch {
        return false;
    }
}
