import * as assert from 'node:assert/strict';
import * as React from '@theia/core/shared/react';
import { renderToStaticMarkup } from 'react-dom/server';
import { highlightedElements, lastBoundary, MarkdownStream, renderChatMarkdown, safeUrl } from './chat-markdown';
import { highlightMarkup } from './highlight-markup';

const html = (node: React.ReactNode) => renderToStaticMarkup(<>{node}</>);

describe('chat Markdown', () => {
    it('gives fenced code a bar with its language and a copy button, and never renders raw HTML', () => {
        const rendered = html(renderChatMarkdown('Run:\n\n```ts\nconst x: number = 1;\n```\n\n<img src=x onerror=alert(1)>'));
        assert.match(rendered, /<div class="qa-code"><div class="qa-code-bar"><span class="qa-code-language">ts<\/span><button class="qa-copy" type="button" data-copy="code"/);
        // Plain until the highlight worker answers (the view's effect asks it; a static render does not).
        assert.match(rendered, /<pre><code class="language-ts">const x: number = 1;\n<\/code><\/pre>/);
        assert.ok(!rendered.includes('<img'), rendered);
        assert.match(rendered, /&lt;img src=x onerror=alert\(1\)&gt;/);
    });

    it('reads highlight.js\'s markup for a known language back as spans; none for an unknown one', () => {
        const markup = highlightMarkup('let a = 1;\n\nlet b = "<b>";', 'js');
        assert.equal(html(highlightedElements(markup!)),
            '<span class="hljs-keyword">let</span> a = <span class="hljs-number">1</span>;\n\n<span class="hljs-keyword">let</span> b = <span class="hljs-string">&quot;&lt;b&gt;&quot;</span>;');
        assert.equal(highlightMarkup('x', 'no-such-language'), undefined);
        assert.equal(highlightMarkup('x', ''), undefined);
    });

    const cases: Array<{ name: string; markdown: string; expected: string }> = [
        { name: 'headings, emphasis, inline code', markdown: '## A *b* **c** ~~d~~ `e<f>`', expected: '<h2>A <em>b</em> <strong>c</strong> <s>d</s> <code>e&lt;f&gt;</code></h2>' },
        { name: 'a tight list, without paragraphs', markdown: '- one\n- two', expected: '<ul><li>one</li><li>two</li></ul>' },
        { name: 'an ordered list from its start', markdown: '3. c\n4. d', expected: '<ol start="3"><li>c</li><li>d</li></ol>' },
        { name: 'a loose list keeps its paragraphs', markdown: '- one\n\n- two', expected: '<ul><li><p>one</p></li><li><p>two</p></li></ul>' },
        { name: 'a table with its alignment', markdown: '| a | b |\n|:-|-:|\n| 1 | 2 |', expected: '<table><thead><tr><th style="text-align:left">a</th><th style="text-align:right">b</th></tr></thead><tbody><tr><td style="text-align:left">1</td><td style="text-align:right">2</td></tr></tbody></table>' },
        { name: 'a quote, a rule, breaks', markdown: '> q\n\n---\n\nline  \nbreak\nsoft', expected: '<blockquote><p>q</p></blockquote><hr/><p>line<br/>break\nsoft</p>' },
        { name: 'links open outside, with their title', markdown: '[site](https://example.com "T") and www.example.org', expected: '<p><a href="https://example.com" title="T" target="_blank" rel="noopener noreferrer">site</a> and <a href="http://www.example.org" target="_blank" rel="noopener noreferrer">www.example.org</a></p>' },
        { name: 'a script link is not a link', markdown: '[x](javascript:alert(1))', expected: '<p>[x](javascript:alert(1))</p>' },
        { name: 'an image on the web as a link to it, not loaded', markdown: '![alt *text*](https://example.com/a.png?q=secret)',
            expected: '<p><a class="qa-image-link" href="https://example.com/a.png?q=secret" title="https://example.com/a.png?q=secret" target="_blank" rel="noopener noreferrer">[image: alt text]</a></p>' },
        { name: 'an image inlined as data', markdown: '![dot](data:image/png;base64,iVBORw0KGgo=)', expected: '<p><img src="data:image/png;base64,iVBORw0KGgo=" alt="dot"/></p>' },
        { name: 'a relative link as its text', markdown: '[readme](docs/readme.md) and [top](#top)', expected: '<p>readme and top</p>' },
        { name: 'an ordered list from zero', markdown: '0. a\n1. b', expected: '<ol start="0"><li>a</li><li>b</li></ol>' },
        { name: 'raw HTML stays text', markdown: '<script>alert(1)</script>\n\n<b onclick="x()">b</b>', expected: '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p><p>&lt;b onclick=&quot;x()&quot;&gt;b&lt;/b&gt;</p>' },
        { name: 'code in an unknown language, unhighlighted', markdown: '```zz\n<b>\n```', expected: '<div class="qa-code"><div class="qa-code-bar"><span class="qa-code-language">zz</span><button class="qa-copy" type="button" data-copy="code" title="Copy">Copy</button></div><pre><code class="language-zz">&lt;b&gt;\n</code></pre></div>' }
    ];
    for (const { name, markdown, expected } of cases) {
        it(`renders ${name}`, () => assert.equal(html(renderChatMarkdown(markdown)), expected));
    }

    const urls: Array<[string, 'link' | 'image', string | undefined]> = [
        ['https://example.com/x', 'link', 'https://example.com/x'],
        ['mailto:a@example.com', 'link', 'mailto:a@example.com'],
        ['docs/readme.md', 'link', undefined],
        ['//example.com/x', 'link', undefined],
        ['https://example.com/a.png', 'image', undefined],
        ['JavaScript:alert(1)', 'link', undefined],
        [' vbscript:x', 'link', undefined],
        ['file:///etc/passwd', 'link', undefined],
        ['data:text/html;base64,PHNjcmlwdD4=', 'link', undefined],
        ['data:image/png;base64,iVBOR', 'image', 'data:image/png;base64,iVBOR'],
        ['data:image/svg+xml;base64,PHN2Zz4=', 'image', undefined],
        ['mailto:a@example.com', 'image', undefined]
    ];
    for (const [url, kind, expected] of urls) {
        it(`keeps only safe URLs: ${kind} ${url}`, () => assert.equal(safeUrl(url, kind), expected));
    }

    const highlights: Array<[string, string, string | undefined]> = [
        ['spans nest and keep their classes', '<span class="hljs-function"><span class="hljs-keyword">function</span> <span class="hljs-title function_">f</span></span>()',
            '<span class="hljs-function"><span class="hljs-keyword">function</span> <span class="hljs-title function_">f</span></span>()'],
        ['escaped text comes back as text, escaped once', 'a &lt; b &amp;&amp; c &gt; &quot;d&quot; &#x27;e&#x27;', 'a &lt; b &amp;&amp; c &gt; &quot;d&quot; &#x27;e&#x27;'],
        ['any other tag makes it plain', '<span class="hljs-string">x</span><img src=x onerror=alert(1)>', undefined],
        ['a span with another attribute makes it plain', '<span class="a" onclick="x()">x</span>', undefined],
        ['an unclosed span makes it plain', '<span class="hljs-string">x', undefined],
        ['a stray close makes it plain', 'x</span>', undefined]
    ];
    for (const [what, markup, expected] of highlights) {
        it(`reads highlight.js's markup: ${what}`, () => {
            const elements = highlightedElements(markup);
            assert.equal(elements && html(elements), expected);
        });
    }

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
        let last: { blocks: readonly React.ReactNode[]; tail: React.ReactNode } = { blocks: [], tail: undefined };
        for (let i = 0; i < text.length; i += 3) {
            chunks.push(text.slice(i, i + 3));
            last = stream.update(chunks);
            seen.push(last.blocks.length);
        }
        assert.ok(seen.every((count, i) => i === 0 || count >= seen[i - 1]), 'blocks only ever grow');
        assert.ok(seen.at(-1)! >= 3, `the stable blocks are rendered while streaming (${seen.at(-1)})`);
        const blocksBefore = [...last.blocks];
        const final = stream.update(chunks, true);
        blocksBefore.forEach((block, index) => assert.equal(final.blocks[index], block, 'stable blocks are never rendered again'));
        assert.equal(final.tail, undefined);
        const joined = final.blocks.map(html).join('');
        assert.equal(joined, html(renderChatMarkdown(text)), 'block by block renders what the whole text renders');
        assert.match(joined, /<h1>Title<\/h1>/);
        assert.match(joined, /<pre><code class="language-js">let a = 1;\n\nlet b = 2;\n<\/code><\/pre>/);
        assert.match(joined, /<ul><li>one<\/li><li>two<\/li><\/ul>/);
        assert.match(joined, /<p>End\.<\/p>/);
    });

    it('renders the tail plainly while it streams: an open code fence is code, not yet highlighted', () => {
        const stream = new MarkdownStream();
        const { blocks, tail } = stream.update(['Intro.\n\n```ts\nconst a = 1;\n']);
        assert.equal(blocks.map(html).join(''), '<p>Intro.</p>');
        assert.match(html(tail), /<pre><code class="language-ts">const a = 1;\n<\/code><\/pre>/);
    });

    it('starts over when the text is replaced rather than extended', () => {
        const stream = new MarkdownStream();
        const before = stream.update(['first\n\nsecond\n'], true).blocks;
        const after = stream.update(['other'], true).blocks;
        assert.deepEqual(after.map(html), ['<p>other</p>']);
        // The view keeps finished blocks by the array's identity: a new text must come in a new array.
        assert.notEqual(after, before);
        assert.deepEqual(before.map(html), ['<p>first</p><p>second</p>']);
    });
});
