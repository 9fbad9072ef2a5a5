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

/** Languages models write most; highlight.js compiles a grammar on its first use. */
const WARM_LANGUAGES = ['typescript', 'javascript', 'python', 'cpp', 'c', 'java', 'go', 'rust', 'json', 'bash', 'shell', 'xml', 'css', 'yaml', 'sql', 'csharp', 'kotlin', 'diff', 'markdown'];
let warmed = false;

/**
 * Does in idle time, a language per callback, what the first answer would otherwise pay for in
 * one long task: compiling the common grammars and the Markdown renderer's first run.
 */
export function warmUpMarkdown(idle: (work: () => void) => void): void {
    if (warmed) {
        return;
    }
    warmed = true;
    const queue = [...WARM_LANGUAGES];
    const next = () => {
        const language = queue.shift();
        if (language) {
            renderChatMarkdown(`Warm *up*:\n\n- one\n\n\`\`\`${language}\nconst a = "b"; // c\n\`\`\`\n`);
            renderChatMarkdown('Warm *up*', { highlight: false });
            idle(next);
        }
    };
    idle(next);
}

const highlighted = createRenderer(true);
/** The part still streaming is rendered without highlighting: it is rendered again on the next batch anyway. */
const plain = createRenderer(false);

const SANITIZE = { ADD_ATTR: ['target'] };

type Purifier = Pick<typeof DOMPurify, 'sanitize'>;
let purifier: Purifier | undefined;

/**
 * DOMPurify needs a DOM: the browser's own, or one handed in where there is none (specs run
 * in Node with jsdom). The chat has an instance of its own with its configuration set once:
 * passing the configuration per call makes DOMPurify copy its allow-lists every time.
 */
export function sanitizeWith(window: Window): Purifier {
    const instance = DOMPurify(window as unknown as Parameters<typeof DOMPurify>[0]);
    instance.setConfig(SANITIZE);
    purifier = instance;
    return instance;
}

export function renderChatMarkdown(text: string, options: { highlight?: boolean } = {}): string {
    const html = (options.highlight === false ? plain : highlighted).render(text);
    return (purifier ?? sanitizeWith(window)).sanitize(html) as string;
}

/**
 * Renders a growing Markdown text a block at a time, from the deltas it is built of. Text up
 * to the last blank line outside a code fence is stable: it is rendered once, highlighted, and
 * never again. Only the tail after it is kept and rendered per update, and only new deltas are
 * read: the cost of a batch grows neither with the length of the answer nor does the answer's
 * whole text get copied (a string grown by `+=` is flattened whenever it is read).
 */
export class MarkdownStream {
    /** Replaced, not emptied, on a reset: the view keeps finished blocks by this array's identity. */
    private stable: string[] = [];
    private source: readonly string[] | undefined;
    private consumed = 0;
    /** The text after the stable blocks. */
    private pending = '';
    private tailHtml = '';
    private tailText: string | undefined;

    /** The rendered stable blocks (each is final) and the rendered tail, for the deltas so far. */
    update(chunks: readonly string[], final = false): { blocks: readonly string[]; tail: string } {
        if (chunks !== this.source || chunks.length < this.consumed) {
            this.reset(chunks);
        }
        for (; this.consumed < chunks.length; this.consumed++) {
            this.pending += chunks[this.consumed];
        }
        const cut = final ? this.pending.length : lastBoundary(this.pending);
        if (cut > 0) {
            const block = this.pending.slice(0, cut);
            if (block.trim()) {
                this.stable.push(renderChatMarkdown(block));
            }
            this.pending = this.pending.slice(cut);
        }
        if (this.pending !== this.tailText) {
            this.tailText = this.pending;
            this.tailHtml = this.pending.trim() ? renderChatMarkdown(this.pending, { highlight: false }) : '';
        }
        return { blocks: this.stable, tail: this.tailHtml };
    }

    private reset(source: readonly string[]): void {
        this.stable = [];
        this.source = source;
        this.consumed = 0;
        this.pending = '';
        this.tailText = undefined;
        this.tailHtml = '';
    }
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Where the stable part of `text` may end: the start of the last complete line that follows a
 * blank line outside a code fence and is not indented (so it cannot continue a list item or an
 * indented block). 0 when there is none.
 */
export function lastBoundary(text: string): number {
    let boundary = 0;
    let fence: string | undefined;
    let previousBlank = false;
    let lineStart = 0;
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
            if (!blank && previousBlank && !/^[ \t]/.test(line)) {
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
