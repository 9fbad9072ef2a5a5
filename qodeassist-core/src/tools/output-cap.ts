/** How many line breaks a piece of text holds. */
function lineBreaks(text: string): number {
    let count = 0;
    for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) {
        count++;
    }
    return count;
}

/** "1234 characters (56 lines)": the lines counted as the line breaks within what was cut. */
function amount(characters: number, lines: number): string {
    return lines > 0 ? `${characters} characters (${lines} lines)` : `${characters} characters`;
}

/** What a head-and-tail cap kept, and exactly how much it left out between the two. */
export interface HeadTailResult {
    text: string;
    /** Characters left out. */
    omitted: number;
    /** Line breaks among them. */
    omittedLines: number;
}

/**
 * Keeps the first and the last characters of text that arrives in pieces (a command's output),
 * counting exactly what falls between, in memory bounded by the two ends.
 */
export class HeadTailText {
    private head = '';
    private tail = '';
    private omitted = 0;
    private omittedLines = 0;

    constructor(private readonly headChars: number, private readonly tailChars: number) { }

    /** Head 30 %, tail 70 %: the command line and the final error both matter, the end more. */
    static within(maxChars: number): HeadTailText {
        const head = Math.floor(maxChars * 0.3);
        return new HeadTailText(head, maxChars - head);
    }

    append(text: string): void {
        const room = this.headChars - this.head.length;
        if (room > 0) {
            this.head += text.slice(0, room);
            text = text.slice(room);
        }
        this.tail += text;
        // Trim now and then, not on every piece: slicing a long string per chunk would cost more than it saves.
        if (this.tail.length > 2 * this.tailChars + 65_536) {
            this.drop(this.tail.length - this.tailChars);
        }
    }

    result(): HeadTailResult {
        const extra = Math.max(0, this.tail.length - this.tailChars);
        const omitted = this.omitted + extra;
        if (omitted === 0) {
            return { text: this.head + this.tail, omitted: 0, omittedLines: 0 };
        }
        const omittedLines = this.omittedLines + lineBreaks(this.tail.slice(0, extra));
        return { text: `${this.head}\n[… ${amount(omitted, omittedLines)} omitted …]\n${this.tail.slice(extra)}`, omitted, omittedLines };
    }

    private drop(count: number): void {
        this.omitted += count;
        this.omittedLines += lineBreaks(this.tail.slice(0, count));
        this.tail = this.tail.slice(count);
    }
}

/** Keeps the head and the tail of `text`, at most `maxChars` of it, with a note of what was left out between. */
export function capHeadTail(text: string, maxChars: number): HeadTailResult {
    const capped = HeadTailText.within(maxChars);
    capped.append(text);
    return capped.result();
}

/** Keeps the first `maxChars` of `text`; a note says how much more there was and what to do about it. */
export function capHead(text: string, maxChars: number, advice: string): string {
    if (text.length <= maxChars) {
        return text;
    }
    const rest = text.slice(maxChars);
    return `${text.slice(0, maxChars)}\n[… ${amount(rest.length, lineBreaks(rest))} cut here; ${advice}]`;
}

/**
 * One line cut to `maxChars` around the character at `focus` (a match), with the characters
 * left out on either side counted. Minified code has lines of megabytes; the match must stay in view.
 */
export function cutLongLine(line: string, maxChars: number, focus = 0): string {
    if (line.length <= maxChars) {
        return line;
    }
    const start = Math.max(0, Math.min(focus - Math.floor(maxChars / 5), line.length - maxChars));
    const after = line.length - start - maxChars;
    return `${start > 0 ? `[… ${start} characters] ` : ''}${line.slice(start, start + maxChars)}${after > 0 ? ` [… ${after} more characters]` : ''}`;
}
