import type { ContentBlock } from '@agentclientprotocol/sdk';
import { basename, isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QodeAssistError } from '../wire/error-info';

/** A file or image of the prompt, to be attached to the chat (within its limits). */
export interface PromptFile {
    /** The name the chat shows and the model reads: workspace-relative when inside it. */
    name: string;
    mediaType: string;
    bytes: Buffer;
}

/** An ACP prompt as the chat takes it: the typed text, and the files and images to attach first. */
export interface PromptParts {
    text: string;
    files: PromptFile[];
}

/** How the server reads a linked file: through the client's editor when it offers that (unsaved text), else from disk. */
export interface LinkedFileReader {
    readText(path: string): Promise<string>;
    readBytes(path: string): Promise<Buffer>;
}

function invalid(message: string): QodeAssistError {
    return new QodeAssistError({ category: 'Validation', message });
}

/** The name a file goes by in the chat: relative to the session's folder when inside it, else its base name. */
function nameOf(path: string, cwd: string): string {
    const inside = relative(cwd, path);
    return inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside.split(sep).join('/') : basename(path);
}

function filePathOf(uri: string): string | undefined {
    if (!uri.startsWith('file:')) {
        return undefined;
    }
    try {
        return fileURLToPath(uri);
    } catch {
        throw invalid(`The file link ${uri} is not a valid file URI; link the file again.`);
    }
}

function labelOf(uri: string, cwd: string): string {
    const path = filePathOf(uri);
    return path ? nameOf(path, cwd) : uri.split(/[\\/]/).filter(Boolean).pop() ?? uri;
}

/**
 * Reads an ACP prompt: text blocks are the message, images and embedded resources are attached,
 * `file://` resource links are read (through the client when it can) and attached, other links
 * stay in the text. Audio, or a prompt with nothing in it, is refused with what to send instead.
 */
export async function promptParts(blocks: readonly ContentBlock[], cwd: string, files: LinkedFileReader): Promise<PromptParts> {
    const texts: string[] = [];
    const attached: PromptFile[] = [];
    for (const block of blocks) {
        switch (block.type) {
            case 'text':
                texts.push(block.text);
                break;
            case 'image': {
                const name = block.uri ? labelOf(block.uri, cwd) : `image-${attached.length + 1}.${block.mimeType.split('/')[1] ?? 'png'}`;
                attached.push({ name, mediaType: block.mimeType, bytes: Buffer.from(block.data, 'base64') });
                break;
            }
            case 'resource': {
                const resource = block.resource;
                const name = labelOf(resource.uri, cwd);
                if ('text' in resource) {
                    attached.push({ name, mediaType: resource.mimeType ?? 'text/plain', bytes: Buffer.from(resource.text, 'utf8') });
                } else {
                    attached.push({ name, mediaType: resource.mimeType ?? 'application/octet-stream', bytes: Buffer.from(resource.blob, 'base64') });
                }
                break;
            }
            case 'resource_link': {
                const path = filePathOf(block.uri);
                if (!path) {
                    // A web page or another scheme: the model reads the link as the user gave it.
                    texts.push(`[${block.title ?? block.name}](${block.uri})`);
                    break;
                }
                const name = nameOf(path, cwd);
                try {
                    attached.push(block.mimeType?.startsWith('image/')
                        ? { name, mediaType: block.mimeType, bytes: await files.readBytes(path) }
                        : { name, mediaType: block.mimeType ?? 'text/plain', bytes: Buffer.from(await files.readText(path), 'utf8') });
                } catch (error) {
                    throw invalid(`The linked file ${name} could not be read (${error instanceof Error ? error.message : String(error)}); check that it exists, or paste its text.`);
                }
                break;
            }
            case 'audio':
                throw invalid('QodeAssist takes text, images and files in a prompt, not audio; describe the recording in words or attach a transcript.');
        }
    }
    const text = texts.join('\n\n');
    if (!text.trim() && attached.length === 0) {
        throw invalid('The prompt is empty; type a message or attach a file.');
    }
    return { text, files: attached };
}
