import { Page } from 'playwright-core';
import { ChatPage, workspaceConfiguration } from '../e2e/chat-page';
import { BrowserAppProcess } from '../e2e/browser-app-process';
import { openNewChat } from '../e2e/chat-views';
import { launchChromium } from '../e2e/chromium';
import { runCommand, waitForTheiaShell } from '../e2e/theia-page';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextStreamRecording } from '../fake-provider/recordings';
import { median } from './statistics';

/** Tokens in the answer, tokens per SSE record, and the pause between records: 1,000 tokens/s. */
const TOKENS = 20_000;
const TOKENS_PER_RECORD = 10;
const RECORD_DELAY_MS = 10;
/** Streams measured, each into a new chat: one run on two shared cores says little. */
const RUNS = 5;

/** What the main thread did in one window of time. */
export interface MainThreadWindow {
    seconds: number;
    longTasks: number;
    longestMs: number;
    /** Sum over long tasks of the time beyond 50 ms. */
    blockingMs: number;
    framesPerSecond: number;
    /** When each long task began, in seconds from the window's start. */
    longTaskStarts: number[];
}

export interface ChatRenderResult {
    idle: MainThreadWindow;
    streaming: MainThreadWindow[];
    batches: number;
    answerChars: number;
    finalBlocks: number;
}

/** A Markdown answer of about `tokens` words: prose, lists and fenced code, as models write. */
export function markdownAnswer(tokens: number): string[] {
    const section = [
        '## Step', '', 'The parser reads the input once and keeps the position of every token, so errors can name the line and column they come from.', '',
        '- it never allocates per character', '- it reports the first error with context', '- it recovers at the next statement', '',
        '```ts', 'export function parse(source: string): Statement[] {', '    const tokens = tokenize(source);', '    const statements: Statement[] = [];',
        '    while (!tokens.done()) {', '        statements.push(statement(tokens));', '    }', '    return statements;', '}', '```', ''
    ].join('\n');
    const words = section.split(/(?<=\s)/);
    const pieces: string[] = [];
    for (let i = 0; pieces.length < tokens; i++) {
        pieces.push(words[i % words.length]);
    }
    return pieces;
}

async function observe(page: Page): Promise<void> {
    await page.evaluate(() => {
        const state = { longTasks: [] as Array<{ duration: number; start: number }>, frames: 0, started: performance.now(), running: true };
        (window as unknown as { __qaBench: typeof state }).__qaBench = state;
        new PerformanceObserver(list => {
            for (const entry of list.getEntries()) {
                state.longTasks.push({ duration: entry.duration, start: entry.startTime });
            }
        }).observe({ type: 'longtask' });
        const tick = () => {
            if (state.running) {
                state.frames++;
                requestAnimationFrame(tick);
            }
        };
        requestAnimationFrame(tick);
    });
}

async function collect(page: Page): Promise<MainThreadWindow> {
    return page.evaluate(() => {
        const state = (window as unknown as { __qaBench: { longTasks: Array<{ duration: number; start: number }>; frames: number; started: number; running: boolean } }).__qaBench;
        state.running = false;
        const seconds = (performance.now() - state.started) / 1000;
        const long = state.longTasks.filter(task => task.duration > 50);
        return {
            seconds,
            longTasks: long.length,
            longestMs: Math.max(0, ...state.longTasks.map(task => task.duration)),
            blockingMs: long.reduce((sum, task) => sum + task.duration - 50, 0),
            framesPerSecond: state.frames / seconds,
            longTaskStarts: long.map(task => (task.start - state.started) / 1000)
        };
    });
}

/**
 * Streams a 20,000-token Markdown answer at 1,000 tokens/s into the chat view in Chromium and
 * records the main thread's long tasks and frame rate; the baseline is the same page, idle,
 * for the same time, in the same run.
 */
export async function measureChatRender(): Promise<ChatRenderResult> {
    const fake = new FakeProviderServer();
    const app = new BrowserAppProcess();
    const chromium = await launchChromium();
    try {
        await fake.start();
        const pieces = markdownAnswer(TOKENS);
        const records: string[] = [];
        for (let i = 0; i < pieces.length; i += TOKENS_PER_RECORD) {
            records.push(pieces.slice(i, i + TOKENS_PER_RECORD).join(''));
        }
        fake.when({ promptIncludes: 'long answer', scenario: { kind: 'replay', recording: openAITextStreamRecording(records), chunkDelayMs: RECORD_DELAY_MS } });
        await app.start({ files: workspaceConfiguration(fake.url), env: { E2E_API_KEY: 'sk-bench-0123456789' } });
        const page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(app.url);
        await waitForTheiaShell(page);
        await runCommand(page, 'QodeAssist: Open Chat in Editor Area');
        const chat = new ChatPage(page);
        await chat.input.waitFor({ state: 'visible', timeout: 20_000 });
        await page.waitForTimeout(2_000);

        const expectedSeconds = records.length * RECORD_DELAY_MS / 1000;
        await observe(page);
        await page.waitForTimeout(expectedSeconds * 1000);
        const idle = await collect(page);

        const streaming: MainThreadWindow[] = [];
        let current = chat;
        for (let run = 0; run < RUNS; run++) {
            if (run > 0) {
                current = await openNewChat(page);
                await page.waitForTimeout(1_000);
            }
            await observe(page);
            await current.send('Please write a long answer.');
            await current.waitForLastAnswer('done', 180_000);
            streaming.push(await collect(page));
        }
        const answer = await current.lastAnswer().evaluate(element => ({
            chars: element.querySelector('.qa-markdown')?.textContent?.length ?? 0,
            blocks: element.querySelectorAll('.qa-md-block').length
        }));
        return { idle, streaming, batches: records.length, answerChars: answer.chars, finalBlocks: answer.blocks };
    } finally {
        await chromium.close();
        await app.stop();
        await fake.stop();
    }
}

export function chatRenderTable(result: ChatRenderResult): string {
    const row = (name: string, window: MainThreadWindow) =>
        `| ${name} | ${window.seconds.toFixed(1)} s | ${window.longTasks}${window.longTasks ? ` (at ${window.longTaskStarts.map(start => `${start.toFixed(1)} s`).join(', ')})` : ''} | ${window.longestMs.toFixed(0)} ms | ${window.blockingMs.toFixed(0)} ms | ${window.framesPerSecond.toFixed(0)} |`;
    return [
        '| window | length | long tasks > 50 ms | longest task | blocking time | frames/s |',
        '|---|---|---|---|---|---|',
        row('idle chat (baseline)', result.idle),
        ...result.streaming.map((window, index) => row(`streaming ${TOKENS.toLocaleString('en')} tokens, run ${index + 1}`, window)),
        '',
        `Median frame rate while streaming: ${(median(result.streaming.map(window => window.framesPerSecond)) / result.idle.framesPerSecond).toFixed(2)}× the idle baseline. `
        + `Each answer arrived in ${result.batches.toLocaleString('en')} records and rendered to ${result.answerChars.toLocaleString('en')} characters in ${result.finalBlocks} Markdown blocks.`
    ].join('\n');
}
