import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { CodeHighlighter, HighlightRequest, HighlightResponse } from './code-highlighter';
import { HIGHLIGHT_WORKER_SOURCE } from './highlight-worker-source';

/** The bundled worker script, run in a context of its own with the two globals a worker gives it. */
function bundledWorker(): { scope: { onmessage?: (event: { data: HighlightRequest }) => void }; answers: HighlightResponse[] } {
    const answers: HighlightResponse[] = [];
    const scope: { onmessage?: (event: { data: HighlightRequest }) => void; postMessage(message: HighlightResponse): void; setTimeout(): void } = {
        postMessage: message => answers.push(message),
        setTimeout: () => undefined
    };
    runInNewContext(HIGHLIGHT_WORKER_SOURCE, { self: scope });
    return { scope, answers };
}

/** A Worker for the highlighter: runs the bundled script's handler and answers on a later turn, as a worker does. */
class ScriptWorker {
    onmessage: ((event: MessageEvent<HighlightResponse>) => void) | null = null;
    onerror: ((event: ErrorEvent) => void) | null = null;
    readonly requests: HighlightRequest[] = [];
    private readonly script = bundledWorker();
    postMessage(request: HighlightRequest): void {
        this.requests.push(request);
        this.script.scope.onmessage!({ data: request });
        const answer = this.script.answers.shift()!;
        setImmediate(() => this.onmessage?.({ data: answer } as MessageEvent<HighlightResponse>));
    }
    terminate(): void { /* nothing runs */ }
}

describe('CodeHighlighter: code highlighted in a worker', () => {
    it('is bundled with highlight.js: the worker script highlights TypeScript and has no grammar for an unknown language', () => {
        assert.ok(readFileSync(join(__dirname, 'highlight-worker-source.js'), 'utf8').length > 50_000, 'the bundle holds highlight.js');
        const { scope, answers } = bundledWorker();
        scope.onmessage!({ data: { id: 1, code: 'const a: number = 1;', language: 'ts' } });
        scope.onmessage!({ data: { id: 2, code: 'x', language: 'no-such-language' } });
        // The script's objects come from its own context: compare their content.
        assert.deepEqual(answers.map(answer => ({ ...answer })), [
            { id: 1, markup: '<span class="hljs-keyword">const</span> <span class="hljs-attr">a</span>: <span class="hljs-built_in">number</span> = <span class="hljs-number">1</span>;' },
            { id: 2, markup: undefined }
        ]);
    });

    it('answers from the worker, then from what it remembers without asking again', async () => {
        const worker = new ScriptWorker();
        const highlighter = new CodeHighlighter(() => worker as unknown as Worker);
        assert.equal(highlighter.cached('let a;', 'js'), 'unknown');
        const [first, other] = await Promise.all([highlighter.highlight('let a;', 'js'), highlighter.highlight('b', 'no-such-language')]);
        assert.equal(first, '<span class="hljs-keyword">let</span> a;');
        assert.equal(other, undefined);
        assert.equal(highlighter.cached('let a;', 'js'), first);
        assert.equal(highlighter.cached('b', 'no-such-language'), undefined, 'an unknown language is remembered too');
        assert.equal(await highlighter.highlight('let a;', 'js'), first);
        assert.equal(worker.requests.length, 2);
    });

    it('forgets the oldest answers beyond its size, never the newest', async () => {
        const worker = new ScriptWorker();
        // Each entry here is 52 characters: 'js', a newline, the code, and its markup. Room for two.
        const highlighter = new CodeHighlighter(() => worker as unknown as Worker, 110);
        await highlighter.highlight('a = 1111', 'js');
        await highlighter.highlight('b = 2222', 'js');
        assert.notEqual(highlighter.cached('a = 1111', 'js'), 'unknown');
        await highlighter.highlight('c = 3333', 'js');
        assert.equal(highlighter.cached('a = 1111', 'js'), 'unknown', 'the oldest is forgotten');
        assert.notEqual(highlighter.cached('c = 3333', 'js'), 'unknown');
        const huge = `x = ${'1'.repeat(100)}`;
        await highlighter.highlight(huge, 'js');
        assert.notEqual(highlighter.cached(huge, 'js'), 'unknown', 'an answer larger than the cache is still kept until the next');
        assert.equal(highlighter.cached('c = 3333', 'js'), 'unknown');
    });

    it('leaves code plain when no worker can start, or when the worker fails, and asks nothing afterwards', async () => {
        let attempts = 0;
        const refused = new CodeHighlighter(() => {
            attempts++;
            throw new Error('Refused to create a worker from blob: (content security policy)');
        });
        const warnings: string[] = [];
        refused.reportFailuresTo(message => warnings.push(message));
        assert.equal(await refused.highlight('let a;', 'js'), undefined);
        assert.equal(await refused.highlight('let b;', 'js'), undefined);
        assert.equal(attempts, 1, 'not retried per block');

        const worker = new ScriptWorker();
        worker.postMessage = request => { worker.requests.push(request); };
        const failing = new CodeHighlighter(() => worker as unknown as Worker);
        const pending = failing.highlight('let a;', 'js');
        worker.onerror!({ message: 'out of memory' } as ErrorEvent);
        assert.equal(await pending, undefined, 'a waiting block is answered');
        assert.equal(await failing.highlight('let c;', 'js'), undefined);
        assert.equal(worker.requests.length, 1);
        failing.reportFailuresTo(message => warnings.push(message));

        assert.equal(warnings.length, 2, 'told when it happens, and to a report set later');
        assert.match(warnings[0], /content security policy.*code blocks stay plain/);
        assert.match(warnings[1], /out of memory.*code blocks stay plain/);
    });
});
