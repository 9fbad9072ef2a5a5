import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { base64Bytes } from './mcp-catalog';
import { toolResultImage, ToolResultImage } from '../wire/tool-result-images';

/** A tool result as the model gets it: the text it reads, and the images that go beside it to an agent that takes images. */
export interface McpToolResultParts {
    text: string;
    images: ToolResultImage[];
}

/**
 * A tool result as the model reads it, with nothing the server returned dropped: text parts as
 * they are; embedded text resources with their URI; resource links with URI, name and media type
 * (the model can name them back for the user to attach); images (and image resources) by type and
 * size, and those of an allowed type within the limits also as images; audio by type and size (no
 * provider takes audio in a tool result); and the structured content as JSON, unless a text part
 * already is that same JSON (what the SDK's servers send beside it).
 */
export function toolResultParts(result: Partial<CallToolResult> & { toolResult?: unknown }): McpToolResultParts {
    const parts = Array.isArray(result.content) ? result.content as ContentBlock[] : [];
    const images: ToolResultImage[] = [];
    const image = (label: string, mediaType: string, data: string): string => {
        const kept = toolResultImage(label, mediaType, data, images.length);
        if (kept.image) {
            images.push(kept.image);
        }
        return kept.text;
    };
    const texts = parts.map(part => {
        switch (part.type) {
            case 'text': return part.text;
            case 'image': return image(`image ${part.mimeType}`, part.mimeType, part.data);
            case 'audio': return `[audio ${part.mimeType}, ${base64Bytes(part.data)} bytes]`;
            case 'resource': {
                const resource = part.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
                if (typeof resource.text === 'string') {
                    return `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}]\n${resource.text}`;
                }
                const label = `resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}`;
                return resource.mimeType && typeof resource.blob === 'string'
                    ? image(label, resource.mimeType, resource.blob) : `[${label}, ${base64Bytes(resource.blob ?? '')} bytes]`;
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
    return { text: texts.join('\n'), images };
}

/** The text of a tool result alone (see toolResultParts). */
export function toolResultText(result: Partial<CallToolResult> & { toolResult?: unknown }): string {
    return toolResultParts(result).text;
}

function sameJson(text: string, json: string): boolean {
    try {
        return JSON.stringify(JSON.parse(text)) === json;
    } catch {
        return false;
    }
}
