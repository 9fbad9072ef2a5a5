import * as markdownit from '@theia/core/shared/markdown-it';
import * as React from '@theia/core/shared/react';
import { codeHighlighter } from './code-highlighter';

type Token = ReturnType<markdownit['parse']>[number];

/**
 * Raw HTML from a model is never rendered (markdown-it escapes it to text). The Markdown is not
 * turned into an HTML string either: its tokens become React elements of an allowed set of tags,
 * text stays text, and links and images keep only safe URLs. So the part of an answer that is
 * still streaming is updated by React in place — a growing paragraph changes one text node — and
 * nothing is parsed as HTML: highlight.js's markup for finished code blocks (made in a worker) is
 * read as spans and text, and nothing else.
 */
const markdown = markdownit({ html: false, linkify: true, breaks: false });

/** Tags an open/close token pair may become; any other is left out and its content kept (single tokens are `leafOf`'s). */
const TAGS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
    'strong', 'em', 's', 'a']);

/**
 * Web and mail links; inline images in the formats markdown-it lets through. Nothing relative:
 * a chat answer has no page of its own, and a relative address would open the IDE's.
 */
export function safeUrl(url: string | null, kind: 'link' | 'image'): string | undefined {
    const scheme = url ? /^\s*([a-z][a-z0-9+.-]*):/i.exec(url)?.[1].toLowerCase() : undefined;
    if (kind === 'link') {
        return scheme === 'http' || scheme === 'https' || scheme === 'mailto' ? url! : undefined;
    }
    return scheme === 'data' && /^\s*data:image\/(png|gif|jpeg|webp);/i.test(url!) ? url! : undefined;
}

const LINK_PROPS = { target: '_blank', rel: 'noopener noreferrer' };

/**
 * The props of an element, or null to leave the element out and keep its content (a link to
 * an address that is not safe). Children are passed to createElement one by one, as JSX does,
 * so they need no keys.
 */
function propsOf(token: Token): Record<string, unknown> | null | undefined {
    switch (token.tag) {
        case 'a': {
            const href = safeUrl(token.attrGet('href'), 'link');
            return href ? { href, title: token.attrGet('title') ?? undefined, ...LINK_PROPS } : null;
        }
        case 'ol': {
            const start = token.attrGet('start');
            return { start: start === null ? undefined : Number(start) };
        }
        case 'th':
        case 'td': {
            const align = /text-align:(left|right|center)/.exec(token.attrGet('style') ?? '')?.[1] as 'left' | 'right' | 'center' | undefined;
            return { style: align ? { textAlign: align } : undefined };
        }
        default:
            return undefined;
    }
}

/**
 * An image: inline when its data is in the answer; one on the web is a link to it, not loaded.
 * Loading it would tell its server whatever the address carries, and a model can be led by text
 * it read (a file, a web page) to put the user's code or keys into that address.
 */
function imageOf(token: Token): React.ReactNode {
    const alt = (token.children ?? []).map(child => child.content).join('') || token.content;
    const src = safeUrl(token.attrGet('src'), 'image');
    if (src) {
        return <img src={src} alt={alt} title={token.attrGet('title') ?? undefined} />;
    }
    const href = safeUrl(token.attrGet('src'), 'link');
    const label = `[image${alt ? `: ${alt}` : ''}]`;
    return href ? <a className='qa-image-link' href={href} title={href} {...LINK_PROPS}>{label}</a> : label;
}

/** Turns a token list (a block's, or an inline token's children) into elements, nesting open/close pairs. */
function elementsOf(tokens: readonly Token[], highlight: boolean): React.ReactNode[] {
    const root: React.ReactNode[] = [];
    const stack: Array<{ token: Token; children: React.ReactNode[] }> = [];
    const out = () => stack.length ? stack[stack.length - 1].children : root;
    for (const token of tokens) {
        if (token.nesting === 1) {
            stack.push({ token, children: [] });
        } else if (token.nesting === -1) {
            const open = stack.pop();
            if (!open) {
                continue;
            }
            const target = out();
            // A tight list's paragraphs are hidden: their content goes straight into the item.
            const props = open.token.hidden || !TAGS.has(open.token.tag) ? null : propsOf(open.token);
            if (props === null) {
                target.push(...open.children);
            } else {
                target.push(React.createElement(open.token.tag, props, ...open.children));
            }
        } else {
            const target = out();
            const leaf = leafOf(token, highlight);
            if (Array.isArray(leaf)) {
                target.push(...leaf);
            } else if (leaf !== undefined) {
                target.push(leaf);
            }
        }
    }
    // Unclosed tokens do not occur in markdown-it's output; keep their content if they ever do.
    while (stack.length) {
        const open = stack.pop()!;
        out().push(...open.children);
    }
    return root;
}

function leafOf(token: Token, highlight: boolean): React.ReactNode | React.ReactNode[] | undefined {
    switch (token.type) {
        case 'inline':
            return elementsOf(token.children ?? [], highlight);
        case 'text':
        case 'text_special':
        case 'html_inline':
        case 'html_block':
            return token.content;
        case 'softbreak':
            return '\n';
        case 'hardbreak':
            return <br />;
        case 'hr':
            return <hr />;
        case 'code_inline':
            return <code>{token.content}</code>;
        case 'image':
            return imageOf(token);
        case 'fence':
        case 'code_block':
            return <CodeBlock code={token.content} language={token.type === 'fence' ? token.info.trim().split(/\s+/, 1)[0] : ''} highlight={highlight} />;
        default:
            return token.content || undefined;
    }
}

/**
 * A code block with a bar naming its language and a copy button (the view handles the click).
 * Finished blocks are highlighted off the main thread: plain first, coloured when the worker
 * answers (at once for a block it has seen).
 */
function CodeBlock({ code, language, highlight }: { code: string; language: string; highlight: boolean }): React.ReactElement {
    // The highlighter remembers its answers: the block asks, and reads the answer from there once it came.
    const [, answered] = React.useReducer((count: number) => count + 1, 0);
    const markup = highlight && language ? codeHighlighter.cached(code, language) : undefined;
    React.useEffect(() => {
        if (markup !== 'unknown') {
            return undefined;
        }
        let mounted = true;
        void codeHighlighter.highlight(code, language).then(() => mounted && answered());
        return () => { mounted = false; };
    }, [code, language, markup]);
    const highlighted = React.useMemo(() => markup && markup !== 'unknown' ? highlightedElements(markup) : undefined, [markup]);
    return <div className='qa-code'>
        <div className='qa-code-bar'>
            <span className='qa-code-language'>{language || 'text'}</span>
            <button className='qa-copy' type='button' data-copy='code' title='Copy'>Copy</button>
        </div>
        <pre><code className={language ? `language-${language}` : undefined}>{highlighted ?? code}</code></pre>
    </div>;
}

/** What highlight.js writes: `<span class="…">`, `</span>`, and text with its five characters escaped. */
const HIGHLIGHT_PIECE = /<span class="([\w -]+)">|<\/span>|([^<]+)/y;
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#x27;': "'" };

/**
 * highlight.js's markup as elements: spans with their class, and text. Anything else in it
 * (there is nothing else, but it is HTML) makes the whole block plain text instead.
 */
export function highlightedElements(html: string): React.ReactNode[] | undefined {
    const root: React.ReactNode[] = [];
    const stack: Array<{ className: string; children: React.ReactNode[] }> = [];
    HIGHLIGHT_PIECE.lastIndex = 0;
    while (HIGHLIGHT_PIECE.lastIndex < html.length) {
        const piece = HIGHLIGHT_PIECE.exec(html);
        if (!piece) {
            return undefined;
        }
        const children = stack.length ? stack[stack.length - 1].children : root;
        if (piece[1] !== undefined) {
            stack.push({ className: piece[1], children: [] });
        } else if (piece[2] !== undefined) {
            children.push(piece[2].replace(/&(?:amp|lt|gt|quot|#x27);/g, entity => ENTITIES[entity]));
        } else {
            const span = stack.pop();
            if (!span) {
                return undefined;
            }
            (stack.length ? stack[stack.length - 1].children : root).push(React.createElement('span', { className: span.className }, ...span.children));
        }
    }
    return stack.length ? undefined : root;
}

/**
 * Markdown as elements. `highlight: false` is for the part still streaming, which is rendered
 * again on the next batch anyway: its code stays plain.
 */
export function renderChatMarkdown(text: string, options: { highlight?: boolean } = {}): React.ReactElement {
    return React.createElement(React.Fragment, undefined, ...elementsOf(markdown.parse(text, {}), options.highlight !== false));
}

let warmed = false;

/**
 * Does in idle time what the first answer would otherwise pay for in one long task: the
 * Markdown parser's first run, and starting the highlight worker (which compiles the common
 * grammars on its own thread).
 */
export function warmUpMarkdown(idle: (work: () => void) => void): void {
    if (warmed) {
        return;
    }
    warmed = true;
    idle(() => {
        renderChatMarkdown('Warm *up*:\n\n- one\n\n```ts\nconst a = "b"; // c\n```\n', { highlight: false });
        codeHighlighter.start();
    });
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
    private stable: React.ReactNode[] = [];
    private source: readonly string[] | undefined;
    private consumed = 0;
    /** The text after the stable blocks. */
    private pending = '';
    private tail: React.ReactNode = undefined;
    private tailText: string | undefined;

    /** The rendered stable blocks (each is final) and the rendered tail, for the deltas so far. */
    update(chunks: readonly string[], final = false): { blocks: readonly React.ReactNode[]; tail: React.ReactNode } {
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
            this.tail = this.pending.trim() ? renderChatMarkdown(this.pending, { highlight: false }) : undefined;
        }
        return { blocks: this.stable, tail: this.tail };
    }

    private reset(source: readonly string[]): void {
        this.stable = [];
        this.source = source;
        this.consumed = 0;
        this.pending = '';
        this.tailText = undefined;
        this.tail = undefined;
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
