/**
 * Reads a fetched body up to `maxBytes`: refused at once when its declared length is larger, and
 * the download stopped as soon as it grows past the cap (a body without a length, streamed).
 * `tooLarge` builds the caller's own typed error, with the declared length when one was given.
 */
export async function readBoundedBody(response: Response, maxBytes: number, tooLarge: (declared?: number) => Error): Promise<Uint8Array> {
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (Number.isFinite(declared) && declared > maxBytes) {
        await response.body?.cancel();
        throw tooLarge(declared);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = response.body?.getReader();
    while (reader) {
        const { done, value } = await reader.read();
        if (done) {
            break;
        }
        size += value.byteLength;
        if (size > maxBytes) {
            await reader.cancel();
            throw tooLarge();
        }
        chunks.push(value);
    }
    const bytes = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
        bytes.set(chunk, offset);
        offset += chunk.byteLength;
    }
    return bytes;
}
