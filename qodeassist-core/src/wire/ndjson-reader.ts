/**
 * Splits a byte stream into lines of newline-delimited JSON. Written here because it
 * is a dozen lines; blank lines are skipped and a last line without `\n` still counts.
 */
export async function* readNdjsonLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of chunks) {
        buffer += decoder.decode(chunk, { stream: true });
        let newline = buffer.indexOf('\n');
        while (newline >= 0) {
            const line = buffer.slice(0, newline).trim();
            buffer = buffer.slice(newline + 1);
            if (line) {
                yield line;
            }
            newline = buffer.indexOf('\n');
        }
    }
    const rest = (buffer + decoder.decode()).trim();
    if (rest) {
        yield rest;
    }
}
