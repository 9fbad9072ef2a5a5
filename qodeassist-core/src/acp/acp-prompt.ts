import type { ContentBlock, PromptCapabilities } from '@agentclientprotocol/sdk';
import { basename, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A file the user linked (pinned, @-mentioned) or attached to the message. */
export interface AcpPromptFile {
    /** Where it lives: absolute, or relative to the first workspace root. */
    path: string;
    /** Its text when the host already holds it (an attachment); otherwise it is read, confined to the workspace. */
    text?: string;
    mimeType?: string;
}

export interface AcpPromptImage {
    /** Base64. */
    data: string;
    mimeType: string;
    uri?: string;
}

/** One user message for an external agent. */
export interface AcpPromptInput {
    text: string;
    files?: readonly AcpPromptFile[];
    images?: readonly AcpPromptImage[];
}

export interface BuiltPrompt {
    blocks: ContentBlock[];
    /** What was left out or changed, in words for the user. */
    notes: string[];
}

/** Reads a file's text for embedding (unsaved editor text included), confined to the workspace; throws why it may not. */
export type PromptFileReader = (path: string) => Promise<string>;

/**
 * The `session/prompt` content for a message, shaped by what the agent accepts: files as embedded
 * resources when it takes embedded context, else as resource links it reads itself through
 * `fs/read_text_file` (an attachment that exists only in the chat goes in as text); images only
 * when it takes images. The user's own text comes last.
 */
export async function buildPrompt(input: AcpPromptInput, capabilities: PromptCapabilities | undefined, roots: readonly string[], read: PromptFileReader): Promise<BuiltPrompt> {
    const blocks: ContentBlock[] = [];
    const notes: string[] = [];
    for (const file of input.files ?? []) {
        const absolute = isAbsolute(file.path) || !roots[0] ? file.path : resolve(roots[0], file.path);
        const uri = pathToFileURL(absolute).href;
        const name = basename(absolute);
        if (capabilities?.embeddedContext) {
            let text = file.text;
            if (text === undefined) {
                try {
                    text = await read(absolute);
                } catch (error) {
                    notes.push(`${file.path} was left out: ${error instanceof Error ? error.message : String(error)}`);
                    continue;
                }
            }
            blocks.push({ type: 'resource', resource: { uri, text, ...(file.mimeType ? { mimeType: file.mimeType } : {}) } });
        } else if (file.text !== undefined) {
            blocks.push({ type: 'text', text: `Attached file ${file.path}:\n\`\`\`\n${file.text}\n\`\`\`` });
        } else {
            blocks.push({ type: 'resource_link', uri, name, ...(file.mimeType ? { mimeType: file.mimeType } : {}) });
        }
    }
    for (const image of input.images ?? []) {
        if (capabilities?.image) {
            blocks.push({ type: 'image', data: image.data, mimeType: image.mimeType, ...(image.uri ? { uri: image.uri } : {}) });
        } else {
            notes.push(`An image (${image.mimeType}) was left out: this agent does not accept images.`);
        }
    }
    blocks.push({ type: 'text', text: input.text });
    return { blocks, notes };
}
