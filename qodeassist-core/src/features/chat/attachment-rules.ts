import { ATTACHMENT_LIMITS } from './chat-types';

/**
 * Why the chat does not take these bytes as an attachment (too large for its kind, or a binary file
 * where text is expected), in words that name the file; undefined when it takes them. Attaching
 * and importing a chat check the same way.
 */
export function attachmentRefusal(name: string, mediaType: string, bytes: Uint8Array): { reason: string; kind: 'size' | 'binary' } | undefined {
    const image = mediaType.startsWith('image/');
    const limit = image ? ATTACHMENT_LIMITS.imageBytes : ATTACHMENT_LIMITS.textBytes;
    if (bytes.length > limit) {
        return { kind: 'size', reason: `"${name}" is ${formatBytes(bytes.length)}; the chat takes ${image ? 'images' : 'files'} up to ${formatBytes(limit)}` };
    }
    if (!image && bytes.subarray(0, 8_000).includes(0)) {
        return { kind: 'binary', reason: `"${name}" is a binary file` };
    }
    return undefined;
}

function formatBytes(bytes: number): string {
    return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
