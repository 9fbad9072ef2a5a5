import * as assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { lastBoundary, MarkdownStream, renderChatMarkdown, sanitizeWith } from './chat-markdown';

describe('chat Markdown', () => {
    before(() => sanitizeWith(new JSDOM('').window as unknown as Window));

    it('highlights fenced code, adds a copy button, and never renders raw HTML', () => {
        const html = renderChatMarkdown('Run:\n\n```ts\nconst x: number = 1;\n```\n\n<img src=x onerror=alert(1)>');
        assert.match(html, /<div class="qa-code"><div class="qa-code-bar"><span class="qa-code-language">ts<\/span><button class="qa-copy" type="button" data-copy="code"/);
        assert.match(html, /<span class="hljs-keyword">const<\/span>/);
        assert.ok(!html.includes('<img'), html);
        assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
    });

    const boundaries: Array<[string, string, number]> = [
        ['no blank line yet', 'one\ntwo\n', 0],
        ['after a paragraph, at the next line', 'one\n\ntwo\n', 5],
        ['not before an indented continuation', '1. item\n\n    more\n', 0],
        ['not inside a fence', '```\na\n\nb\n', 0],
        ['after the fence closed', '```\na\n\nb\n```\n\nnext\n', 14],
        ['not at a line still arriving', 'one\n\ntw', 0],
        ['the last of several', 'a\n\nb\n\nc\n', 6]
    ];
    for (const [what, text, expected] of boundaries) {
        it(`finds the stable boundary: ${what}`, () => assert.equal(lastBoundary(text), expected));
    }

    it('renders a streamed text a block at a time and ends equal to a whole render', () => {
        const text = '# Title\n\nSome *text*.\n\n```js\nlet a = 1;\n\nlet b = 2;\n```\n\n- one\n- two\n\nEnd.';
        const stream = new MarkdownStream();
        const seen: number[] = [];
        const chunks: string[] = [];
        let last = { blocks: [] as readonly string[], tail: '' };
        for (let i = 0; i < text.length; i += 3) {
            chunks.push(text.slice(i, i + 3));
            last = stream.update(chunks);
            seen.push(last.blocks.length);
        }
        assert.ok(seen.every((count, i) => i === 0 || count >= seen[i - 1]), 'blocks only ever grow');
        assert.ok(seen.at(-1)! >= 3, `the stable blocks are rendered while streaming (${seen.at(-1)})`);
        const blocksBefore = [...last.blocks];
        const final = stream.update(chunks, true);
        assert.deepEqual(final.blocks.slice(0, blocksBefore.length), blocksBefore, 'stable blocks are never rendered again');
        assert.equal(final.tail, '');
        const joined = final.blocks.join('');
        assert.match(joined, /<h1>Title<\/h1>/);
        assert.match(joined, /<span class="hljs-keyword">let<\/span> a = <span class="hljs-number">1<\/span>;\n\n<span class="hljs-keyword">let<\/span> b/);
        assert.match(joined, /<ul>\n<li>one<\/li>\n<li>two<\/li>\n<\/ul>/);
        assert.match(joined, /<p>End\.<\/p>/);
    });

    it('starts over when the text is replaced rather than extended', () => {
        const stream = new MarkdownStream();
        const before = stream.update(['first\n\nsecond\n'], true).blocks;
        const after = stream.update(['other'], true).blocks;
        assert.deepEqual(after, ['<p>other</p>\n']);
        // The view keeps finished blocks by the array's identity: a new text must come in a new array.
        assert.notEqual(after, before);
        assert.deepEqual(before, ['<p>first</p>\n<p>second</p>\n']);
    });
});
