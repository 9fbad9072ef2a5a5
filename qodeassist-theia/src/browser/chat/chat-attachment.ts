import type { OutgoingAttachment } from './chat-controller';

/** What an attachment of the composer is, and how its bytes travel to the backend. */
const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

export interface Attachment extends OutgoingAttachment {
    /** Kept until sent: when the view switches chats (summarize, open), the copy is made again beside the new one. */
    bytes: Uint8Array;
}

/** A file to attach whose bytes are read only when it is uploaded. */
export interface AttachmentSource {
    name: string;
    mediaType: string;
    bytes(): Promise<Uint8Array>;
}

export function toBase64(bytes: Uint8Array): string {
    let binary = '';
    for (let offset = 0; offset < bytes.length; offset += 0x8000) {
        binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
    }
    return btoa(binary);
}

export function mediaTypeOf(name: string, given?: string): string {
    if (given) {
        return given;
    }
    return IMAGE_TYPES[name.split('.').pop()?.toLowerCase() ?? ''] ?? 'text/plain';
}
