/**
 * An answer without the reasoning some models write inline first (`<think>…</think>`): closed
 * blocks go, and an unfinished one takes everything after it (no answer yet).
 */
export function withoutThinkBlocks(text: string): string {
    const withoutClosed = text.replace(/<think>[\s\S]*?<\/think>\s*/g, '');
    const open = withoutClosed.indexOf('<think>');
    return open >= 0 ? withoutClosed.slice(0, open) : withoutClosed;
}
