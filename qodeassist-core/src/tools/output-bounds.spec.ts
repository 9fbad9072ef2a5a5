import * as assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { parseBuildProblems } from '../context/build-problems';
import { ToolCall } from '../wire/assistant-turn';
import { FILE_TOOLS, hasRipgrep, MAX_READ_BYTES, MAX_WHOLE_FILE_BYTES } from './file-tools';
import { CommandBuildRunner, NodeTerminal } from './node-process';
import { capHead, capHeadTail, cutLongLine, HeadTailText } from './output-cap';
import { BUILD_OUTPUT_CHARS, createBuildTool, createTerminalTool, MAX_BUILD_PROBLEMS } from './process-tools';
import { detectSandbox, sandboxLabel } from './sandbox';
import { MAX_SEARCH_OUTPUT_CHARS } from './search-results';
import { defineTool, ToolContext } from './tool';
import { MAX_TOOL_RESULT_CHARS, ToolContributorRegistry, ToolKitExecutor } from './tool-executor';
import { WorkspaceFiles } from './workspace-files';

const GIB = 1024 ** 3;

/**
 * Bytes read through file handles while `body` runs. read_file reads through one, so a file it
 * did not read shows as no bytes here (a whole-file readFile of 3 GB would fail outright).
 */
async function bytesReadDuring<T>(body: () => Promise<T>): Promise<{ value: T; bytes: number }> {
    const probe = await open(__filename, 'r');
    const prototype = Object.getPrototypeOf(probe) as { read: (...args: unknown[]) => Promise<{ bytesRead: number }> };
    await probe.close();
    const original = prototype.read;
    let bytes = 0;
    prototype.read = async function (this: unknown, ...args: unknown[]) {
        const result = await original.apply(this, args);
        bytes += result.bytesRead;
        return result;
    };
    try {
        const value = await body();
        return { value, bytes };
    } finally {
        prototype.read = original;
    }
}

/** Each bound on what a tool hands back to the model: the cut happens, the note says how much, and what is kept is exact. */
describe('What tools hand back to the model is bounded', function () {
    this.timeout(60_000);
    let root: string;
    let toolkit: ToolKitExecutor;

    beforeEach(() => {
        root = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-bounds-')));
        const registry = new ToolContributorRegistry();
        registry.register(() => FILE_TOOLS);
        toolkit = new ToolKitExecutor(registry, 'bounds', { files: new WorkspaceFiles([root]), permissions: { ask: async () => 'allow-once' } });
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    const call = (name: string, args: Record<string, unknown>) => toolkit.execute({ callId: 'c', name, arguments: args } as ToolCall, { requestId: 'r' });
    const context = (): ToolContext => ({ requestId: 'r', chatId: 'c', files: new WorkspaceFiles([root]) });

    describe('read_file', () => {
        /** 200 numbered text lines (10 KB, past the binary sniff), then nothing but a hole up to 3 GB. */
        const hugeFile = () => {
            const text = Array.from({ length: 200 }, (_, i) => `text line ${String(i + 1).padStart(3, '0')} ${'.'.repeat(32)}`).join('\n') + '\n';
            writeFileSync(join(root, 'huge.log'), text);
            truncateSync(join(root, 'huge.log'), 3 * GIB);
            return text.split('\n');
        };

        it('a 3 GB file without a range: asks for pages and reads none of it', async () => {
            hugeFile();
            const { value, bytes } = await bytesReadDuring(() => call('read_file', { path: 'huge.log' }));
            assert.deepEqual(value, {
                isError: true,
                content: '"huge.log" is 3.0 GB (3221225472 bytes), too large to read without a range. Read it in pages: call read_file with start_line and end_line (at most 2000 lines a call), or find the lines you need with search_project first.'
            });
            assert.equal(bytes, 0);
        });

        it('a 3 GB file with a range: exactly the lines asked for, reading only its first chunk', async () => {
            const lines = hugeFile();
            const { value, bytes } = await bytesReadDuring(() => call('read_file', { path: 'huge.log', start_line: 2, end_line: 4 }));
            assert.equal(value.content, lines.slice(1, 4).join('\n'));
            assert.ok(bytes <= 8_000 + 64 * 1024, `read ${bytes} bytes`);
        });

        it('a 3 GB file paged from a line: the page stops before the line that does not fit, and says where to go on', async () => {
            const lines = hugeFile();
            const { value, bytes } = await bytesReadDuring(() => call('read_file', { path: 'huge.log', start_line: 199 }));
            assert.equal(value.content, `${lines[198]}\n${lines[199]}\n[lines 199–200 shown of a 3.0 GB (3221225472 bytes) file whose lines are not counted; call read_file again with start_line=201 for more]`);
            assert.ok(bytes < 8_000 + MAX_READ_BYTES + 2 * 64 * 1024, `read ${bytes} bytes`);
        });

        it('edit_file refuses a file over the whole-file limit before reading it', async () => {
            hugeFile();
            const { value, bytes } = await bytesReadDuring(() => call('edit_file', { path: 'huge.log', old_text: 'text line 001', new_text: 'x' }));
            assert.deepEqual(value, { isError: true, content: `"huge.log" is 3.0 GB (3221225472 bytes), larger than the 9.5 MB (${MAX_WHOLE_FILE_BYTES} bytes) edit_file works on.` });
            assert.equal(bytes, 0);
        });

        it('a page stops at MAX_READ_BYTES on a line boundary and counts the lines', async () => {
            // 300 + 1 bytes a line: 664 lines are 199 863 bytes; a 665th would pass 200 000.
            writeFileSync(join(root, 'wide.txt'), Array.from({ length: 1_000 }, () => 'y'.repeat(300)).join('\n'));
            const { content } = await call('read_file', { path: 'wide.txt' });
            assert.equal(content, `${Array.from({ length: 664 }, () => 'y'.repeat(300)).join('\n')}\n[lines 1–664 of 1000 shown; call read_file again with start_line=665 for more]`);
        });

        it('a page capped below an explicit end_line still says where to go on', async () => {
            writeFileSync(join(root, 'many.txt'), Array.from({ length: 3_000 }, (_, i) => `${i + 1}`).join('\n'));
            const { content } = await call('read_file', { path: 'many.txt', start_line: 1, end_line: 2_500 });
            assert.equal(content, `${Array.from({ length: 2_000 }, (_, i) => `${i + 1}`).join('\n')}\n[lines 1–2000 of 3000 shown; call read_file again with start_line=2001 for more]`);
        });

        it('a line longer than a page is cut there, with its full length', async () => {
            writeFileSync(join(root, 'min.js'), `${'x'.repeat(300_000)}\nnext`);
            const { content } = await call('read_file', { path: 'min.js' });
            assert.equal(content, `${'x'.repeat(MAX_READ_BYTES)}\n[line 1 is 300000 bytes long; only its first 200000 bytes are shown. Call read_file again with start_line=2 for the lines after it]`);
            assert.equal((await call('read_file', { path: 'min.js', start_line: 2 })).content, 'next');
        });

        it('a long line is cut on a character boundary, never inside one', async () => {
            writeFileSync(join(root, 'euro.txt'), '€'.repeat(100_000));
            const { content } = await call('read_file', { path: 'euro.txt' });
            assert.equal(content, `${'€'.repeat(66_666)}\n[line 1 is 300000 bytes long; only its first 199998 bytes are shown]`);
        });
    });

    for (const engine of ['js', 'ripgrep'] as const) {
        describe(`search_project with the ${engine} engine`, () => {
            before(async () => {
                if (engine === 'js') {
                    process.env.QODEASSIST_SEARCH_ENGINE = 'js';
                } else {
                    assert.equal(await hasRipgrep(), true, 'rg must be installed for this test');
                }
            });
            after(() => { delete process.env.QODEASSIST_SEARCH_ENGINE; });

            it('stops before MAX_SEARCH_OUTPUT_CHARS and counts the matches not shown', async () => {
                writeFileSync(join(root, 'hits.txt'), Array.from({ length: 300 }, () => `hit ${'x'.repeat(396)}`).join('\n'));
                const { content } = await call('search_project', { query: 'hit', context_lines: 0, max_results: 1_000 });
                const printed = Array.from({ length: 300 }, (_, i) => `hits.txt:${i + 1}: hit ${'x'.repeat(396)}`);
                let shown = 0;
                for (let chars = 0; chars + printed[shown].length + 1 <= MAX_SEARCH_OUTPUT_CHARS; shown++) {
                    chars += printed[shown].length + 1;
                }
                assert.equal(shown, 120);
                assert.equal(content, `${printed.slice(0, shown).join('\n')}\n[180 more matches not shown (the answer stops at 50000 characters); narrow the query or the glob]`);
            });

            it('cuts a long line around its match and a long context line from its start, counting what was left out', async () => {
                writeFileSync(join(root, 'bundle.js'), `${'a'.repeat(10_000)}NEEDLE${'b'.repeat(10_000)}\n${'c'.repeat(600)}\n`);
                const { content } = await call('search_project', { query: 'needle', context_lines: 1 });
                assert.equal(content, [
                    `bundle.js:1: [… 9900 characters] ${'a'.repeat(100)}NEEDLE${'b'.repeat(394)} [… 9606 more characters]`,
                    `bundle.js-2- ${'c'.repeat(500)} [… 100 more characters]`
                ].join('\n'));
            });
        });
    }

    describe('execute_terminal_command and build_project', () => {
        it('a command printing 1.1 MB keeps exactly its first 30 % and last 70 % of the limit, and counts the characters and lines between', async () => {
            const terminal = createTerminalTool({ terminal: new NodeTerminal(), allowed: ['node'], maxOutputChars: 200, timeoutMs: 30_000 });
            const script = 'for (let i = 0; i < 100000; i++) process.stdout.write(`line ${String(i).padStart(5, "0")}\\n`)';
            const result = await terminal.run({ command: `node -e '${script}'` }, context());
            const lines = Array.from({ length: 100_000 }, (_, i) => `line ${String(i).padStart(5, '0')}\n`);
            // 11 characters a line: the head is 60 characters (5 lines and 5 characters), the tail 140 (12 lines and 8 characters).
            const all = lines.join('');
            assert.equal(result.content, `$ node -e '${script}'\n[sandbox: ${sandboxLabel(await detectSandbox())}]\n${all.slice(0, 60)}\n[… 1099800 characters (99982 lines) omitted …]\n${all.slice(-140)}\n[exited with code 0]`);
        });

        it('build_project lists MAX_BUILD_PROBLEMS problems and counts the rest; its output keeps head and tail within BUILD_OUTPUT_CHARS', async () => {
            // 400 problems of exactly 40 characters: 16 000 characters, of which 10 000 are kept (75 lines of head, 175 of tail).
            const script = 'let s = ""; for (let i = 0; i < 400; i++) s += `src/f${String(i).padStart(4, "0")}.ts(1,1): error TS1005: x.`.padEnd(39, "!") + "\\n"; process.stdout.write(s); process.exitCode = 2';
            const tool = createBuildTool(new CommandBuildRunner([process.execPath, '-e', script], root));
            const result = await tool.run({}, context());
            const lines = Array.from({ length: 400 }, (_, i) => `${`src/f${String(i).padStart(4, '0')}.ts(1,1): error TS1005: x.`.padEnd(39, '!')}\n`);
            const output = `${lines.slice(0, 75).join('')}\n[… 6000 characters (150 lines) omitted …]\n${lines.slice(225).join('')}`;
            assert.equal(BUILD_OUTPUT_CHARS, 10_000);
            const problems = parseBuildProblems(output);
            assert.equal(problems.length, 250);
            assert.equal(result.content, [
                'The build failed (exit code 2).',
                `[sandbox: ${sandboxLabel(await detectSandbox())}]`,
                'Problems (250 errors, 0 warnings):',
                ...Array.from({ length: MAX_BUILD_PROBLEMS }, (_, i) => `src/f${String(i).padStart(4, '0')}.ts:1:1: error: x.!!!!`),
                '[… 200 more problems not shown; fix these and build again]',
                `Output:\n${output}`
            ].join('\n'));
        });
    });

    it('any tool, whoever wrote it: a result over MAX_TOOL_RESULT_CHARS keeps exactly its head and counts the rest', async () => {
        const registry = new ToolContributorRegistry();
        registry.register(() => [defineTool({ name: 'chatty', description: 'Says a lot', permission: 'read', parameters: z.strictObject({}), run: async () => ({ content: 'z'.repeat(600_000) }) })]);
        const executor = new ToolKitExecutor(registry, 'bounds', { files: new WorkspaceFiles([root]), permissions: { ask: async () => 'deny' } });
        const { content } = await executor.execute({ callId: 'c', name: 'chatty', arguments: {} } as ToolCall, { requestId: 'r' });
        assert.equal(MAX_TOOL_RESULT_CHARS, 500_000);
        assert.equal(content, `${'z'.repeat(500_000)}\n[… 100000 characters cut here; no tool result is handed over longer than this; ask the tool for less]`);
    });

    describe('the caps themselves', () => {
        it('HeadTailText counts the same cut however the text arrives in pieces', () => {
            const text = Array.from({ length: 50_000 }, (_, i) => `${i}\n`).join('');
            const whole = capHeadTail(text, 1_000);
            for (const piece of [1, 7, 4_096, 65_537, 200_000]) {
                const capped = HeadTailText.within(1_000);
                for (let at = 0; at < text.length; at += piece) {
                    capped.append(text.slice(at, at + piece));
                }
                assert.deepEqual(capped.result(), whole, `pieces of ${piece}`);
            }
            assert.equal(whole.omitted, text.length - 1_000);
            assert.equal(whole.text, `${text.slice(0, 300)}\n[… ${text.length - 1_000} characters (${whole.omittedLines} lines) omitted …]\n${text.slice(-700)}`);
            assert.equal(whole.omittedLines, text.slice(300, -700).split('\n').length - 1);
        });

        it('capHead keeps the head exactly and counts the rest; short text passes untouched', () => {
            assert.equal(capHead('a\nb\nc\nd', 3, 'ask for less'), 'a\nb\n[… 4 characters (2 lines) cut here; ask for less]');
            assert.equal(capHead('short', 5, 'ask for less'), 'short');
        });

        it('cutLongLine keeps the match in view near either end', () => {
            assert.equal(cutLongLine('0123456789', 4, 0), '0123 [… 6 more characters]');
            assert.equal(cutLongLine('0123456789', 5, 9), '[… 5 characters] 56789');
            assert.equal(cutLongLine('0123456789', 10, 5), '0123456789');
        });
    });
});
