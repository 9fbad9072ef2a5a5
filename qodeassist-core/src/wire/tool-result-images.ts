import { ATTACHMENT_LIMITS } from '../protocol';

/*
 * The images a tool result carries to the model besides its text: which ones go (an allowlist of
 * media types whose bytes really are of that type, each within the chat's image limit, a few per
 * result), and the words for one that does not. The text of a result always describes every image,
 * so an agent or a template without images still learns what the tool returned.
 */

/** The image types every provider that takes images in a tool result accepts. */
export const TOOL_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ToolImageType = typeof TOOL_IMAGE_TYPES[number];

/** Images one tool result hands to the model at most; further ones are described only. */
export const MAX_TOOL_RESULT_IMAGES = 8;

/** An image a tool returned: its media type and its bytes as base64. */
export interface ToolResultImage {
    mediaType: ToolImageType;
    data: string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Whether the bytes are the whole file of each allowed type, not just its first bytes: a server's
 * word for its media type is checked against the file's structure, so a signature followed by a
 * page (a polyglot) is refused. PNG: the signature, then chunks whose lengths add up exactly, IHDR
 * first and IEND last. JPEG: start and end of image. GIF: header and trailer. WebP: the RIFF size
 * is the file's, with a VP8, VP8L or VP8X chunk first.
 */
const STRUCTURES: Readonly<Record<ToolImageType, (bytes: Buffer) => boolean>> = {
    'image/png': isPng,
    'image/jpeg': bytes => bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff
        && bytes[bytes.length - 2] === 0xff && bytes[bytes.length - 1] === 0xd9,
    'image/gif': bytes => bytes.length >= 14 && ['GIF87a', 'GIF89a'].includes(bytes.subarray(0, 6).toString('latin1')) && bytes[bytes.length - 1] === 0x3b,
    'image/webp': bytes => bytes.length >= 20 && bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.readUInt32LE(4) + 8 === bytes.length
        && bytes.subarray(8, 12).toString('latin1') === 'WEBP' && ['VP8 ', 'VP8L', 'VP8X'].includes(bytes.subarray(12, 16).toString('latin1'))
};

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function isPng(bytes: Buffer): boolean {
    if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) {
        return false;
    }
    let offset = 8;
    let first = true;
    while (offset + 12 <= bytes.length) {
        const length = bytes.readUInt32BE(offset);
        const type = bytes.subarray(offset + 4, offset + 8).toString('latin1');
        if (!/^[A-Za-z]{4}$/.test(type) || (first && type !== 'IHDR')) {
            return false;
        }
        offset += 12 + length;
        if (type === 'IEND') {
            return offset === bytes.length;
        }
        first = false;
    }
    return false;
}

/** How many bytes a base64 text decodes to, without decoding it. */
export function base64Size(base64: string): number {
    const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
    return Math.max(0, Math.floor(base64.length * 3 / 4) - padding);
}

export function isToolImageType(mediaType: string): mediaType is ToolImageType {
    return (TOOL_IMAGE_TYPES as readonly string[]).includes(mediaType);
}

/**
 * One image part of a tool result: the line that describes it (always; `label` names the part, e.g.
 * `image image/png`), and the image when it may go to the model — `taken` counts the images of this result already kept.
 */
export function toolResultImage(label: string, mediaType: string, base64: string, taken: number): { text: string; image?: ToolResultImage } {
    const bytes = base64Size(base64);
    const described = `[${label}, ${bytes} bytes`;
    const refusal = whyNotSent(mediaType, base64, bytes, taken);
    if (refusal === undefined && isToolImageType(mediaType)) {
        return { text: `${described}]`, image: { mediaType, data: base64 } };
    }
    return { text: refusal ? `${described}: not sent to the model, ${refusal}]` : `${described}]` };
}

/** Why an image part does not go; undefined when it goes, '' when it is no image the model could take (described as any other part). */
function whyNotSent(mediaType: string, base64: string, bytes: number, taken: number): string | undefined {
    if (!isToolImageType(mediaType)) {
        return '';
    }
    if (bytes > ATTACHMENT_LIMITS.imageBytes) {
        return `larger than the ${ATTACHMENT_LIMITS.imageBytes / 1024 / 1024} MB the chat takes for an image`;
    }
    if (!BASE64.test(base64) || base64.length % 4 !== 0) {
        return 'its data is not base64';
    }
    if (!STRUCTURES[mediaType](Buffer.from(base64, 'base64'))) {
        return `its bytes are not a ${mediaType} image`;
    }
    if (taken >= MAX_TOOL_RESULT_IMAGES) {
        return `a tool result hands over at most ${MAX_TOOL_RESULT_IMAGES} images`;
    }
    return undefined;
}

/**
 * The images already found of their type and within the limits. The same image passes the tool
 * executor, the tool loop and every later send of its history: its bytes (up to 5 MB) are decoded
 * and walked once. Images are never changed in place; one read anew (a chat file, a saved image) is
 * a new object and is checked again.
 */
const checked = new WeakSet<ToolResultImage>();

/** A result's images as they may go on (a tool of any origin, a chat file): allowed, within the limits, at most the maximum; the rest left out. */
export function keptToolImages(images: readonly ToolResultImage[] | undefined): ToolResultImage[] {
    const kept: ToolResultImage[] = [];
    for (const image of images ?? []) {
        if (kept.length < MAX_TOOL_RESULT_IMAGES && (checked.has(image) || toolResultImage('image', image.mediaType, image.data, kept.length).image)) {
            checked.add(image);
            kept.push(image);
        }
    }
    return kept;
}
