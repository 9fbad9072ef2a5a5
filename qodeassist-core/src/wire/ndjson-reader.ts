/**
 * Splits a byte stream into lines of newline-delimited JSON, one batch per network
 * chunk. Written here because it is a dozen lines; blank lines are skipped and a last
 * line without `\n` still counts.
 */
export async function* readNdjsonLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string[]> {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of chunks) {
        buffer += decoder.decode(chunk, { stream: true });
        const end = buffer.lastIndexOf('\n');
        if (end < 0) {
            yield [];
            continue;
        }
        const lines = buffer.slice(0, end).split('\n').map(line => line.trim()).filter(line => line.length > 0);
        buffer = buffer.slice(end + 1);
        yield lines;
    }
    const rest = (buffer + decoder.decode()).trim();
    yield rest ? [rest] : [];
}
