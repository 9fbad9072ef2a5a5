import { join } from 'node:path';
import { Page } from 'playwright-core';
import { BrowserAppProcess, REPO_ROOT } from '../e2e/browser-app-process';
import { launchChromium, screenshotPath } from '../e2e/chromium';
import { waitForTheiaShell } from '../e2e/theia-page';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording } from '../fake-provider/recordings';
import { AIMS, analyseRun, CompletionRun, completionTable, GhostEvent, KeyEvent, rhythmSummaryTable, StopKind, WAITED_MS } from './completion-bench-analysis';
import { DEBOUNCE_MS, FIRST_BYTE_MS, FRESH_LINE_STOP, PAUSE_MS, STOPS, TARGET_LINES, WARM_UP_LINE } from './completion-script';
import { BENCH_RHYTHMS, TypistRhythm } from './typist-rhythms';

const INDENT = '    ';

const FUNCTION_HEADER = 'export function describe(shape: Shape): string {';
const FILE = [
    'export interface Shape {', '    name: string;', '    width: number;', '    height: number;', '}', '',
    FUNCTION_HEADER, INDENT, '}', ''
].join('\n');
/** The body's line (1-based) where typing starts. */
const BODY_LINE = 8;

/**
 * The fake model: the rest of the target line the request's code ends with. Both apps put a marker at the cursor
 * (ours `<cursor>`, Theia AI `[[MARKER]]`, the first of the two it writes); what precedes it on its line is what was typed so far.
 */
export function completionFor(prompt: string): string {
    // Theia AI names its marker again after the snippet ("Replace [[MARKER]] with…"): the first one is the cursor.
    const at = Math.max(prompt.lastIndexOf('<cursor>'), prompt.indexOf('[[MARKER]]'));
    if (at < 0) {
        return '';
    }
    // The cursor's own file: the last function header before the marker (the files of the other rhythms, open in other
    // tabs, may come earlier in the prompt as open-file context, with every line written).
    const before = prompt.slice(0, at).slice(Math.max(0, prompt.slice(0, at).lastIndexOf(FUNCTION_HEADER)));
    const typed = before.slice(before.lastIndexOf('\n') + 1).trimStart();
    // The lines already written say which one is being typed: several start alike.
    const line = TARGET_LINES[TARGET_LINES.filter(candidate => before.includes(`${INDENT}${candidate}\n`)).length];
    return line && line.startsWith(typed) ? line.slice(typed.length) : '';
}

function lastUserText(body: string): string {
    try {
        const messages = (JSON.parse(body) as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
        const last = [...messages].reverse().find(message => message.role === 'user');
        const content = last?.content;
        return typeof content === 'string' ? content
            : Array.isArray(content) ? content.map(part => (part as { text?: string }).text ?? '').join('') : '';
    } catch {
        return '';
    }
}

/** A non-streamed Chat Completions answer (Theia AI's code completion asks with `stream: false`). */
function chatCompletionJson(text: string): string {
    return JSON.stringify({
        id: 'chatcmpl-bench', object: 'chat.completion', created: 1_763_800_000, model: 'fake-model',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 }
    });
}

async function instrument(page: Page): Promise<void> {
    await page.evaluate(() => {
        const existing = (window as unknown as { __qaCompletion?: { keys: unknown[]; ghosts: unknown[] } }).__qaCompletion;
        if (existing) {
            // The next rhythm in the same page: the listeners stay, the record starts afresh.
            existing.keys.length = 0;
            existing.ghosts.length = 0;
            return;
        }
        const state = { keys: [] as Array<{ t: number; key: string }>, ghosts: [] as Array<{ t: number; text: string }> };
        (window as unknown as { __qaCompletion: typeof state }).__qaCompletion = state;
        document.addEventListener('keydown', event => {
            if (event.key.length === 1 || event.key === 'Enter') {
                state.keys.push({ t: performance.now(), key: event.key });
            }
        }, true);
        // A suggestion renders as one or more spans after the cursor (the part past the next word is a "preview" span).
        const read = () => Array.from(document.querySelectorAll('.monaco-editor .ghost-text-decoration, .monaco-editor .ghost-text-decoration-preview'))
            .map(element => (element.textContent ?? '').replace(/\u00a0/g, ' ')).join('');
        let last = '';
        new MutationObserver(() => {
            const text = read();
            if (text !== last) {
                last = text;
                state.ghosts.push({ t: performance.now(), text });
            }
        }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
}

/** Types `text` key by key, each key's gap (before the next one) from the rhythm; `index` counts the keys typed so far. */
async function typeAt(page: Page, text: string, rhythm: TypistRhythm, index: number): Promise<number> {
    for (const key of text) {
        // Playwright waits `delay` between this key's down and up: the next key comes that much later.
        await page.keyboard.type(key, { delay: rhythm.gap(index++) });
    }
    return index;
}

/** Types the target lines with stops, as one user would, and reads back what the page saw. */
async function typeWithStops(page: Page, rhythm: TypistRhythm): Promise<{ keys: KeyEvent[]; ghosts: GhostEvent[]; stops: Array<{ key: number; kind: StopKind }> }> {
    const stops: Array<{ key: number; kind: StopKind }> = [];
    let typed = 0;
    for (const [index, line] of TARGET_LINES.entries()) {
        if (index > 0) {
            // Past a suggestion that may be showing, then down to a new line.
            await page.keyboard.press('Escape');
            await page.keyboard.press('Enter', { delay: rhythm.gap(typed) });
            typed++;
            if (FRESH_LINE_STOP(index)) {
                stops.push({ key: typed - 1, kind: 'fresh line' });
                await page.waitForTimeout(PAUSE_MS);
            }
        }
        let from = 0;
        for (const stop of [...STOPS.filter(at => at < line.length), line.length]) {
            typed = await typeAt(page, line.slice(from, stop), rhythm, typed);
            from = stop;
            if (stop < line.length) {
                stops.push({ key: typed - 1, kind: 'in line' });
                await page.waitForTimeout(PAUSE_MS);
            }
        }
    }
    await page.waitForTimeout(PAUSE_MS);
    const recorded = await page.evaluate(() => (window as unknown as { __qaCompletion: { keys: KeyEvent[]; ghosts: GhostEvent[] } }).__qaCompletion);
    return { ...recorded, stops };
}

/** What QodeAssist's status popover says it waits now (the adaptive debounce and eager floor it reached). */
async function qodeAssistTimings(page: Page): Promise<string | undefined> {
    await page.locator('#status-bar-qodeassist-completion').hover();
    const hover = page.locator('.theia-hover', { hasText: 'Asks' });
    try {
        await hover.waitFor({ timeout: 5_000 });
    } catch {
        return undefined;
    }
    const text = (await hover.textContent() ?? '').replace(/\u00a0/g, ' ');
    const match = /Asks after (\d+) ms of quiet \(([^)]*)\); on a fresh line or after .*? (\d+ ms|at once)\./.exec(text);
    return match ? `${match[1]} ms (${match[2] === 'from your typing rhythm' ? 'rhythm' : 'setting'}); fresh line ${match[3]}` : undefined;
}

interface AppUnderTest {
    name: string;
    /** For file names. */
    slug: string;
    main?: string;
    settings: (serverUrl: string) => Record<string, unknown>;
    files: (serverUrl: string) => Record<string, string>;
}

/** The word-based suggest list would hide ghost text in both apps: it is off, as for anyone who relies on inline completion. */
const EDITOR_SETTINGS = { 'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' }, 'editor.wordBasedSuggestions': 'off' };

const QODEASSIST_FILES = (url: string) => ({
        '.qodeassist/providers/fake.toml': `schema_version = 1\nname = "fake"\nclient_api = "openai_compatible"\nurl = "${url}/v1"\napi_key_ref = "e2e"\n`,
        '.qodeassist/agents/fake-instruct.toml': 'schema_version = 1\nname = "fake-instruct"\nextends = "openai-completion"\nprovider_instance = "fake"\nmodel = "fake-model"\n',
        '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[completion]\nagents = ["fake-instruct"]\n'
});

/** QodeAssist as Theia AI is set: the same debounce, fixed (eager contexts still wait for the pause). Only with QA_BENCH_COMPLETION_FIXED=1: each app costs ~9 minutes. */
const QODEASSIST_FIXED: AppUnderTest = {
    name: 'QodeAssist, fixed 300 ms debounce (instruct agent)',
    slug: 'qodeassist-fixed',
    settings: () => ({ ...EDITOR_SETTINGS, 'qodeassist.completion.debounceMs': DEBOUNCE_MS, 'qodeassist.completion.adaptiveDebounce': false }),
    files: QODEASSIST_FILES
};

/** QodeAssist as it ships: the same configured debounce, adapted to the typist's rhythm. */
const QODEASSIST: AppUnderTest = {
    name: 'QodeAssist, adaptive debounce — the default (instruct agent)',
    slug: 'qodeassist',
    settings: () => ({ ...EDITOR_SETTINGS, 'qodeassist.completion.debounceMs': DEBOUNCE_MS }),
    files: QODEASSIST_FILES
};

const THEIA_AI: AppUnderTest = {
    name: 'Theia AI code completion 1.74.1 (OpenAI-compatible custom model)',
    slug: 'theia-ai',
    main: join(REPO_ROOT, 'test', 'theia-ai-app', 'lib', 'backend', 'main.js'),
    settings: url => ({
        ...EDITOR_SETTINGS,
        'ai-features.codeCompletion.automaticCodeCompletion': true,
        'ai-features.codeCompletion.debounceDelay': DEBOUNCE_MS,
        'ai-features.openAiCustom.customOpenAiModels': [{ model: 'fake-model', url: `${url}/v1`, id: 'fake-completion', apiKey: 'sk-bench-0123456789', enableStreaming: false }],
        'ai-features.agentSettings': { 'Code Completion': { languageModelRequirements: [{ purpose: 'code-completion', identifier: 'fake-completion' }] } }
    }),
    files: () => ({})
};

/** A file per rhythm, so every rhythm starts from the same text. */
const fileFor = (rhythm: TypistRhythm) => `src/shapes-${rhythm.slug}.ts`;

async function openFile(page: Page, name: string): Promise<void> {
    await page.keyboard.press('Control+p');
    const input = page.locator('.quick-input-widget input');
    await input.fill(name);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 10_000 });
    await input.press('Enter');
    // Earlier files' editors stay in the page, hidden behind their tabs.
    const editor = page.locator('.monaco-editor .view-lines').filter({ visible: true }).first();
    await editor.waitFor({ timeout: 10_000 });
    await page.waitForTimeout(500);
    await editor.click();
    await page.keyboard.press('Control+Home');
    for (let line = 1; line < BODY_LINE; line++) {
        await page.keyboard.press('ArrowDown');
    }
    await page.keyboard.press('End');
}

/** One app: its page types the script at every rhythm, each in a file of its own. */
async function measureApp(target: AppUnderTest, rhythms: readonly TypistRhythm[]): Promise<CompletionRun[]> {
    const fake = new FakeProviderServer();
    const app = new BrowserAppProcess();
    const chromium = await launchChromium();
    try {
        await fake.start();
        fake.setDefault({
            kind: 'dynamic',
            respond: body => {
                const text = completionFor(lastUserText(body));
                return (JSON.parse(body) as { stream?: boolean }).stream
                    ? { kind: 'replay', recording: openAITextRecording(text), firstByteDelayMs: FIRST_BYTE_MS }
                    : { kind: 'status', status: 200, body: chatCompletionJson(text), headers: { 'content-type': 'application/json' }, firstByteDelayMs: FIRST_BYTE_MS };
            }
        });
        await app.start({
            main: target.main, settings: target.settings(fake.url),
            files: { ...target.files(fake.url), ...Object.fromEntries(rhythms.map(rhythm => [fileFor(rhythm), FILE])) }, env: { E2E_API_KEY: 'sk-bench-0123456789' }
        });
        const page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(app.url);
        await waitForTheiaShell(page);
        await page.waitForTimeout(2_000);
        await page.screenshot({ path: screenshotPath(`completion-bench-${target.slug}-start`) });
        const runs: CompletionRun[] = [];
        for (const rhythm of rhythms) {
            await openFile(page, fileFor(rhythm).split('/').pop()!);
            // The typist's own rhythm first (a comment line), then one request before the measurement: first-use costs are not what a user sees all day.
            await typeAt(page, WARM_UP_LINE, rhythm, 0);
            await page.keyboard.press('Escape');
            await page.keyboard.press('Enter');
            await page.keyboard.type('x', { delay: rhythm.gap(0) });
            await page.waitForTimeout(PAUSE_MS);
            await page.keyboard.press('Escape');
            await page.keyboard.press('Backspace');
            await page.waitForTimeout(PAUSE_MS);
            await Promise.all(fake.requests.map(request => Promise.race([request.ended, new Promise(resolve => setTimeout(resolve, 5_000))])));
            const before = fake.requests.length;
            await instrument(page);
            const { keys, ghosts, stops } = await typeWithStops(page, rhythm);
            const measured = fake.requests.slice(before);
            await Promise.all(measured.map(request => Promise.race([request.ended, new Promise(resolve => setTimeout(resolve, 5_000))])));
            const timings = target.main ? `${DEBOUNCE_MS} ms (setting)` : await qodeAssistTimings(page);
            await page.screenshot({ path: screenshotPath(`completion-bench-${target.slug}-${rhythm.slug}-end`) });
            const run: CompletionRun = {
                ...analyseRun(target.name, TARGET_LINES, keys, ghosts, stops),
                requests: measured.length,
                cancelled: measured.filter(request => request.outcome === 'aborted-by-client').length,
                timings
            };
            // Per stop, for whoever reads the console: ⏎ marks a fresh-line stop, – a stop without a correct suggestion. The page's
            // own median key gap (the last 50 gaps of 20–1000 ms, as the app's rhythm keeps them) is there to set against "asks after".
            console.log(`${rhythm.name}, ${run.app}: ${run.requests} requests, ${run.cancelled} cancelled, ${run.stale} stale; page's median key gap ${medianKeyGap(keys)} ms; ${run.latencies.map((ms, index) => `${run.stops[index] === 'fresh line' ? '⏎' : ''}${ms === undefined ? '–' : Math.round(ms)}`).join(' ')}`);
            runs.push(run);
        }
        return runs;
    } catch (error) {
        throw new Error(`${target.name}: ${error instanceof Error ? error.message : String(error)}\n${app.log.slice(-3_000)}`);
    } finally {
        await chromium.close();
        await app.stop();
        await fake.stop();
    }
}

/** The median of the last 50 gaps between the page's keydowns that a typing rhythm counts (20 ms to under a second). */
function medianKeyGap(keys: readonly KeyEvent[]): number | undefined {
    const gaps = keys.slice(1).map((key, index) => key.t - keys[index].t).filter(gap => gap >= 20 && gap < 1_000).slice(-50).sort((a, b) => a - b);
    return gaps.length ? Math.round(gaps[Math.ceil(gaps.length / 2) - 1]) : undefined;
}

export interface RhythmRuns {
    rhythm: TypistRhythm;
    /** Theia AI first, then each QodeAssist variant. */
    runs: CompletionRun[];
}

/**
 * Theia AI's own completion and QodeAssist as it ships (and, with QA_BENCH_COMPLETION_FIXED=1, with the debounce fixed as
 * Theia AI's), each in its own app, typing the same lines at every rhythm against the same fake model.
 */
export async function measureCompletionSideBySide(rhythms: readonly TypistRhythm[] = BENCH_RHYTHMS): Promise<RhythmRuns[]> {
    const targets = [THEIA_AI, ...process.env.QA_BENCH_COMPLETION_FIXED === '1' ? [QODEASSIST_FIXED] : [], QODEASSIST];
    const byApp: CompletionRun[][] = [];
    for (const target of targets) {
        byApp.push(await measureApp(target, rhythms));
    }
    return rhythms.map((rhythm, index) => ({ rhythm, runs: byApp.map(runs => runs[index]) }));
}

export const COMPLETION_BENCH_SETUP = { rhythms: BENCH_RHYTHMS.map(rhythm => rhythm.name), pauseMs: PAUSE_MS, debounceMs: DEBOUNCE_MS, firstByteMs: FIRST_BYTE_MS, lines: TARGET_LINES.length };

/** The BENCHMARKS.md section's text: how it was measured, the summary per rhythm, then each rhythm's table. */
export function completionSection(byRhythm: readonly RhythmRuns[], measuredOn: string): string {
    return [
        measuredOn,
        'Two Theia 1.74.1 browser apps, production builds, each in its own Chromium page: ours, and `test/theia-ai-app` with',
        '`@theia/ai-code-completion` and an OpenAI-compatible custom model. Both talk to the same fake model on 127.0.0.1, which',
        `answers after ${FIRST_BYTE_MS} ms with the rest of the line the request's code ends with, so a suggestion is right only`,
        `for what had been typed when it was asked. A typist writes ${TARGET_LINES.length} lines into a function, stopping ${PAUSE_MS} ms at a few points`,
        'per line and, every other line, on the fresh line it just opened; it types the same script at every rhythm, in a file of',
        'its own, after a comment line typed at that rhythm (so an adaptive debounce knows it, as it would after a minute of work):',
        '',
        ...byRhythm.map(({ rhythm }) => `- **${rhythm.name}**: ${rhythm.description}.`),
        '',
        `Every app is configured with a ${DEBOUNCE_MS} ms debounce; QodeAssist runs as it ships: never more requests than a`,
        `${DEBOUNCE_MS} ms debounce trigger would send over the same keys (a request budget, 1 in hand at the start, at most 2 kept),`,
        'spent on asking ahead inside a burst at a fresh line or after `( , = [`, else once the typist\'s rhythm says the burst',
        'paused (2 × the median gap, at least 60 ms; the adaptive debounce in ordinary text), else at the configured debounce.',
        'The page records every keystroke and every change of the ghost text (MutationObserver); *keystroke → ghost text* is the',
        'time from the last key before a stop to the first correct suggestion; it is compared at the stops where some app\'s user',
        `waited (an app took ${WAITED_MS} ms or more, or showed nothing — counted as the whole pause), the same stops for every app.`,
        'A *stale* suggestion is ghost text that does not fit what had been typed when it showed. *Requests* are those the fake',
        'model received during the script, cancelled ones included (each costs prompt tokens on a cloud provider). *Asks after*',
        'is what the app said it waited at the end (QodeAssist\'s status popover).',
        '',
        `### Per rhythm, as ratios to Theia AI in the same run (aim: requests ≤ ${AIMS.requestsRatio.toFixed(1)}× at a median ≤ ${AIMS.medianRatio}×)`,
        '',
        rhythmSummaryTable(byRhythm.map(({ rhythm, runs }) => ({ rhythm: rhythm.name, runs })), PAUSE_MS),
        '',
        ...byRhythm.flatMap(({ rhythm, runs }) => [`### ${rhythm.name}`, '', completionTable(runs, PAUSE_MS), ''])
    ].join('\n');
}
