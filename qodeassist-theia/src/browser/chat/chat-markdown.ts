import * as DOMPurify from '@theia/core/shared/dompurify';
import * as markdownit from '@theia/core/shared/markdown-it';
import hljs from 'highlight.js/lib/common';

/** Raw HTML from a model is never rendered; links open outside the IDE. */
function createRenderer(highlight: boolean): markdownit {
    const renderer = markdownit({
        html: false, linkify: true, breaks: false,
        highlight: highlight ? (code, language) => highlightCode(code, language) : undefined
    });
    const fence = renderer.renderer.rules.fence!;
    // Each code block gets a bar with its language and a copy button; the view handles the click.
    renderer.renderer.rules.fence = (tokens, index, options, env, self) => {
        const language = tokens[index].info.trim().split(/\s+/, 1)[0];
        const label = renderer.utils.escapeHtml(language || 'text');
        return `<div class="qa-code"><div class="qa-code-bar"><span class="qa-code-language">${label}</span>`
            + `<button class="qa-copy" type="button" data-copy="code" title="Copy">Copy</button></div>${fence(tokens, index, options, env, self)}</div>`;
    };
    return renderer;
}

function highlightCode(code: string, language: string): string {
    if (language && hljs.getLanguage(language)) {
        try {
            return hljs.highlight(code, { language, ignoreIllegals: true }).value;
        } catch {
            return '';
        }
    }
    return '';
}

const highlighted = createRenderer(true);
/** The part still streaming is rendered without highlighting: it is rendered again on the next batch anyway. */
const plain = createRenderer(false);

const SANITIZE = { ADD_ATTR: ['target'] };

type Purifier = Pick<typeof DOMPurify, 'sanitize'>;
let purifier: Purifier | undefined;

/** DOMPurify needs a DOM: the browser's own, or one handed in where there is none (specs run in Node with jsdom). */
export function sanitizeWith(window: Window): void {
    purifier = DOMPurify(window as unknown as Parameters<typeof DOMPurify>[0]);
}

export function renderChatMarkdown(text: string, options: { highlight?: boolean } = {}): string {
    const html = (options.highlight === false ? plain : highlighted).render(text);
    return (purifier ?? DOMPurify).sanitize(html, SANITIZE) as string;
}

/**
 * Renders a growing Markdown text a block at a time. Text up to the last blank line
 * outside a code fence is stable: it is rendered once, highlighted, and never again.
 * Only the tail after it is rendered per update, so the cost of a batch does not grow
 * with the length of the answer.
 */
export class MarkdownStream {
    private readonly stable: string[] = [];
    /** The source of the stable blocks, kept whole so checking that the text still starts with it allocates nothing. */
    private stableText = '';
    private tailHtml = '';
    private tailText: string | undefined;

    /** The rendered stable blocks (each is final) and the rendered tail. */
    update(text: string, final = false): { blocks: readonly string[]; tail: string } {
        if (!text.startsWith(this.stableText)) {
            this.reset();
        }
        const stableLength = this.stableText.length;
        const cut = final ? text.length : lastBoundary(text, stableLength);
        if (cut > stableLength) {
            const block = text.slice(stableLength, cut);
            if (block.trim()) {
                this.stable.push(renderChatMarkdown(block));
            }
            this.stableText = text.slice(0, cut);
        }
        const tail = text.slice(this.stableText.length);
        if (tail !== this.tailText) {
            this.tailText = tail;
            this.tailHtml = tail.trim() ? renderChatMarkdown(tail, { highlight: false }) : '';
        }
        return { blocks: this.stable, tail: this.tailHtml };
    }

    private reset(): void {
        this.stable.length = 0;
        this.stableText = '';
        this.tailText = undefined;
        this.tailHtml = '';
    }
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Where the stable part may end: the start of the last complete line, at or after `from`, that
 * follows a blank line outside a code fence and is not indented (so it cannot continue a list
 * item or an indented block). `from` when there is none.
 */
export function lastBoundary(text: string, from: number): number {
    let boundary = from;
    let fence: string | undefined;
    let previousBlank = false;
    let lineStart = from;
    while (lineStart < text.length) {
        const newline = text.indexOf('\n', lineStart);
        if (newline < 0) {
            break;
        }
        const line = text.slice(lineStart, newline);
        const marker = FENCE.exec(line)?.[1];
        if (fence) {
            if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
                fence = undefined;
            }
            previousBlank = false;
        } else {
            const blank = line.trim() === '';
            if (!blank && previousBlank && lineStart > from && !/^[ \t]/.test(line)) {
                boundary = lineStart;
            }
            if (marker) {
                fence = marker;
            }
            previousBlank = blank;
        }
        lineStart = newline + 1;
    }
    return boundary;
}
