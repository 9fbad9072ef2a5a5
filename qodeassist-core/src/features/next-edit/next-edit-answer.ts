import { QodeAssistError } from '../../wire/error-info';

/** Zeta's markers (its documented prompt format): the region it may rewrite and where the cursor is. */
export const REGION_START = '<|editable_region_start|>';
export const REGION_END = '<|editable_region_end|>';
export const CURSOR_MARKER = '<|user_cursor_is_here|>';

/** How an agent's answer carries the rewritten region. */
export type AnswerFormat = 'region-markers' | 'fenced';

/** An answer longer than this many times the region (plus slack) is not a rewrite of it. */
const GROWTH_CAP = 3;
const GROWTH_SLACK = 2000;

/**
 * The rewritten region from a model's answer. Zeta echoes the excerpt's region between its markers;
 * an instruct model writes the region in one fenced block. The cursor marker, echoed or not, is dropped.
 * A missing region or one far larger than the original is a Provider error saying so: nothing is shown.
 */
export function rewrittenRegion(answer: string, format: AnswerFormat, original: string): string {
    const visible = answer.replace(/<think>[\s\S]*?<\/think>/g, '');
    const region = format === 'region-markers' || visible.includes(REGION_START) ? betweenMarkers(visible) : fencedBlock(visible);
    const rewritten = region.split(CURSOR_MARKER).join('');
    const cap = GROWTH_CAP * original.length + GROWTH_SLACK;
    if (rewritten.length > cap) {
        throw new QodeAssistError({
            category: 'Provider',
            message: `The next-edit answer rewrote the region into ${rewritten.length} characters, more than ${cap} (${GROWTH_CAP}× the region's ${original.length} plus ${GROWTH_SLACK}): it is not an edit of it. Try another next_edit agent or a smaller region.`
        });
    }
    return rewritten;
}

function betweenMarkers(answer: string): string {
    const start = answer.indexOf(REGION_START);
    const end = start === -1 ? -1 : answer.indexOf(REGION_END, start + REGION_START.length);
    if (start === -1 || end === -1) {
        const missing = start === -1 ? REGION_START : REGION_END;
        throw new QodeAssistError({
            category: 'Provider',
            message: `The next-edit answer has no ${missing}: the model did not answer in Zeta's format. Use a Zeta model with this agent, or an instruct agent (…-next-edit) for other models.`
        });
    }
    // The markers sit on lines of their own: the line breaks next to them are the format's, not the code's.
    return answer.slice(start + REGION_START.length, end).replace(/^\r?\n/, '').replace(/\r?\n$/, '');
}

function fencedBlock(answer: string): string {
    const lines = answer.split('\n');
    const open = lines.findIndex(line => /^[ \t]*(`{3,}|~{3,})/.test(line));
    if (open === -1) {
        throw new QodeAssistError({
            category: 'Provider',
            message: 'The next-edit answer has no fenced code block: the model did not rewrite the region as asked. Try another next_edit agent.'
        });
    }
    const fence = /^[ \t]*(`{3,}|~{3,})/.exec(lines[open])![1];
    const close = lines.findIndex((line, index) => index > open && line.trim() === fence);
    if (close === -1) {
        throw new QodeAssistError({
            category: 'Provider',
            message: 'The next-edit answer\'s code block is not closed: the answer was cut off (a token limit?). Raise the agent\'s output tokens or pick a smaller region.'
        });
    }
    return lines.slice(open + 1, close).join('\n');
}
