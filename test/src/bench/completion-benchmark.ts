import { join } from 'node:path';
import { Page } from 'playwright-core';
import { BrowserAppProcess, REPO_ROOT } from '../e2e/browser-app-process';
import { launchChromium, screenshotPath } from '../e2e/chromium';
import { waitForTheiaShell } from '../e2e/theia-page';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording } from '../fake-provider/recordings';
import { median, percentile } from './statistics';

/** The lines the typist writes into the function body, in order. No brackets or quotes: editors auto-close those differently. */
export const TARGET_LINES = [
    'const area = shape.width * shape.height;',
    'const perimeter = 2 * shape.width + 2 * shape.height;',
    'const ratio = shape.width / shape.height;',
    'const square = ratio === 1;',
    'const large = area > 100 || perimeter > 40;',
    'return shape.name + area;'
];
const INDENT = '    ';
/** Where the typist stops to look for a suggestion: after this many characters of each line, then at its end. */
const STOPS = [3, 8, 14, 22, 31, 42];
const KEY_DELAY_MS = 80;
const PAUSE_MS = 1_600;
const DEBOUNCE_MS = 300;
/** The fake model's time to first byte, the same for both apps. */
const FIRST_BYTE_MS = 250;

const FILE = [
    'export interface Shape {', '    name: string;', '    width: number;', '    height: number;', '}', '',
    'export function describe(shape: Shape): string {', INDENT, '}', ''
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
    const before = prompt.slice(0, at);
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

export interface CompletionRun {
    app: string;
    stops: number;
    /** Keystroke → correct ghost text, per stop where one appeared, in ms. */
    latencies: number[];
    /** Stops where no correct suggestion appeared within the pause. */
    missed: number;
    /** What had been typed on the line at each missed stop. */
    missedAt: string[];
    requests: number;
    /** Requests the app cancelled (closed before the answer was complete). */
    cancelled: number;
    /** Ghost texts shown that did not fit what had been typed by then. */
    stale: number;
}

interface KeyEvent { t: number; key: string }
interface GhostEvent { t: number; text: string }

async function instrument(page: Page): Promise<void> {
    await page.evaluate(() => {
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

/** What the typist had typed at time `t`: the line and how much of it. */
function typedAt(keys: readonly KeyEvent[], t: number): { line: number; column: number } {
    let line = 0;
    let column = 0;
    for (const key of keys) {
        if (key.t > t) {
            break;
        }
        if (key.key === 'Enter') {
            line++;
            column = 0;
        } else {
            column++;
        }
    }
    return { line, column };
}

/** Types the target lines with stops, as one user would, and reads back what the page saw. */
async function typeWithStops(page: Page): Promise<{ keys: KeyEvent[]; ghosts: GhostEvent[]; stopKeys: number[] }> {
    const stopKeys: number[] = [];
    let typed = 0;
    for (const [index, line] of TARGET_LINES.entries()) {
        let from = 0;
        for (const stop of [...STOPS.filter(at => at < line.length), line.length]) {
            await page.keyboard.type(line.slice(from, stop), { delay: KEY_DELAY_MS });
            typed += stop - from;
            from = stop;
            if (stop < line.length) {
                stopKeys.push(typed - 1);
                await page.waitForTimeout(PAUSE_MS);
            }
        }
        if (index < TARGET_LINES.length - 1) {
            // Past a suggestion that may be showing, then down to a new line.
            await page.keyboard.press('Escape');
            await page.keyboard.press('Enter');
            typed++;
        }
    }
    await page.waitForTimeout(PAUSE_MS);
    const recorded = await page.evaluate(() => (window as unknown as { __qaCompletion: { keys: KeyEvent[]; ghosts: GhostEvent[] } }).__qaCompletion);
    return { ...recorded, stopKeys };
}

function analyse(app: string, keys: readonly KeyEvent[], ghosts: readonly GhostEvent[], stopKeys: readonly number[]): Omit<CompletionRun, 'requests' | 'cancelled'> {
    const expectedAt = (t: number) => {
        const { line, column } = typedAt(keys, t);
        return TARGET_LINES[line]?.slice(column) ?? '';
    };
    const latencies: number[] = [];
    const missedAt: string[] = [];
    for (const index of stopKeys) {
        const key = keys[index];
        const next = keys[index + 1]?.t ?? Number.POSITIVE_INFINITY;
        const shown = ghosts.find(ghost => ghost.t > key.t && ghost.t < next && ghost.text !== '' && ghost.text === expectedAt(ghost.t));
        if (shown) {
            latencies.push(shown.t - key.t);
        } else {
            const { line, column } = typedAt(keys, key.t);
            missedAt.push(TARGET_LINES[line]?.slice(0, column) ?? '');
        }
    }
    // Monaco may render a long ghost text in more than one step: a start of the right text is not stale.
    const staleGhosts = ghosts.filter(ghost => ghost.text !== '' && !expectedAt(ghost.t).startsWith(ghost.text));
    const stale = staleGhosts.length;
    return { app, stops: stopKeys.length, latencies, missed: missedAt.length, missedAt, stale };
}

interface AppUnderTest {
    name: string;
    main?: string;
    settings: (serverUrl: string) => Record<string, unknown>;
    files: (serverUrl: string) => Record<string, string>;
}

/** The word-based suggest list would hide ghost text in both apps: it is off, as for anyone who relies on inline completion. */
const EDITOR_SETTINGS = { 'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' }, 'editor.wordBasedSuggestions': 'off' };

const QODEASSIST: AppUnderTest = {
    name: 'QodeAssist (instruct agent, OpenAI-compatible)',
    settings: () => ({ ...EDITOR_SETTINGS, 'qodeassist.completion.debounceMs': DEBOUNCE_MS }),
    files: url => ({
        '.qodeassist/providers/fake.toml': `schema_version = 1\nname = "fake"\nclient_api = "openai_compatible"\nurl = "${url}/v1"\napi_key_ref = "e2e"\n`,
        '.qodeassist/agents/fake-instruct.toml': 'schema_version = 1\nname = "fake-instruct"\nextends = "openai-completion"\nprovider_instance = "fake"\nmodel = "fake-model"\n',
        '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[completion]\nagents = ["fake-instruct"]\n'
    })
};

const THEIA_AI: AppUnderTest = {
    name: 'Theia AI code completion 1.74.1 (OpenAI-compatible custom model)',
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

async function measureApp(target: AppUnderTest): Promise<CompletionRun> {
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
            files: { ...target.files(fake.url), 'src/shapes.ts': FILE }, env: { E2E_API_KEY: 'sk-bench-0123456789' }
        });
        const page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(app.url);
        await waitForTheiaShell(page);
        await page.waitForTimeout(2_000);
        await page.screenshot({ path: screenshotPath(`completion-bench-${target.main ? 'theia-ai' : 'qodeassist'}-start`) });
        await page.keyboard.press('Control+p');
        const input = page.locator('.quick-input-widget input');
        await input.fill('shapes.ts');
        await page.locator('.quick-input-list .monaco-list-row', { hasText: 'shapes.ts' }).first().waitFor({ timeout: 10_000 });
        await input.press('Enter');
        const editor = page.locator('.monaco-editor .view-lines').first();
        await editor.waitFor({ timeout: 10_000 });
        await editor.click();
        await page.keyboard.press('Control+Home');
        for (let line = 1; line < BODY_LINE; line++) {
            await page.keyboard.press('ArrowDown');
        }
        await page.keyboard.press('End');
        // Both apps get one request before the measurement: first-use costs are not what a user sees all day.
        await page.keyboard.type('x', { delay: KEY_DELAY_MS });
        await page.waitForTimeout(PAUSE_MS);
        await page.keyboard.press('Escape');
        await page.keyboard.press('Backspace');
        await page.waitForTimeout(PAUSE_MS);
        const before = fake.requests.length;
        await instrument(page);
        const { keys, ghosts, stopKeys } = await typeWithStops(page);
        const measured = fake.requests.slice(before);
        await Promise.all(measured.map(request => Promise.race([request.ended, new Promise(resolve => setTimeout(resolve, 5_000))])));
        return {
            ...analyse(target.name, keys, ghosts, stopKeys),
            requests: measured.length,
            cancelled: measured.filter(request => request.outcome === 'aborted-by-client').length
        };
    } catch (error) {
        throw new Error(`${target.name}: ${error instanceof Error ? error.message : String(error)}\n${app.log.slice(-3_000)}`);
    } finally {
        await chromium.close();
        await app.stop();
        await fake.stop();
    }
}

/** QodeAssist and Theia AI's own completion, each in its own app, typing the same lines against the same fake model. */
export async function measureCompletionSideBySide(): Promise<CompletionRun[]> {
    const runs: CompletionRun[] = [];
    for (const target of [THEIA_AI, QODEASSIST]) {
        runs.push(await measureApp(target));
    }
    return runs;
}

/**
 * A stop's suggestion either was already there (the typist typed into a shown suggestion: a few ms of rendering) or had to
 * be fetched (debounce + the model's first byte + the engine's own overhead). Overhead is measured on the fetched ones only.
 */
function split(run: CompletionRun): { typedThrough: number[]; fetched: number[] } {
    return { typedThrough: run.latencies.filter(ms => ms < DEBOUNCE_MS), fetched: run.latencies.filter(ms => ms >= DEBOUNCE_MS) };
}

export function completionTable(runs: readonly CompletionRun[]): string {
    const [baseline, ours] = runs;
    for (const run of runs) {
        if (split(run).fetched.length === 0) {
            // No figures rather than a table of NaN: the harness did not see this app fetch a suggestion.
            throw new Error(`${run.app} fetched no correct suggestion at any of its ${run.stops} stops (${run.requests} requests sent, ${run.stale} stale); `
                + 'the side-by-side figures would mean nothing. Check the app\'s settings in completion-benchmark.ts.');
        }
    }
    const overhead = (run: CompletionRun) => median(split(run).fetched) - DEBOUNCE_MS - FIRST_BYTE_MS;
    const row = (run: CompletionRun) => {
        const { typedThrough, fetched } = split(run);
        return `| ${run.app} | ${run.stops - run.missed} of ${run.stops} | ${typedThrough.length} (${typedThrough.length ? median(typedThrough).toFixed(0) : '–'} ms) | `
            + `${fetched.length}: ${median(fetched).toFixed(0)} ms, p95 ${percentile(fetched, 0.95).toFixed(0)} ms | ${overhead(run).toFixed(0)} ms | ${run.requests} | ${run.cancelled} | ${run.stale} |`;
    };
    return [
        '| app | stops with a correct suggestion | already shown, typed through (median) | fetched: keystroke → ghost text, median, p95 | overhead (fetched median − debounce − first byte) | requests sent | cancelled | stale suggestions shown |',
        '|---|---|---|---|---|---|---|---|',
        row(baseline),
        row(ours),
        '',
        ...runs.filter(run => run.missedAt.length).map(run => `${run.app} showed nothing at: ${run.missedAt.map(typed => `\`${typed}\``).join(', ')}.`),
        '',
        `QodeAssist ÷ Theia AI: overhead ${(overhead(ours) / overhead(baseline)).toFixed(2)}× (aim ≤ 0.5×), requests ${(ours.requests / baseline.requests).toFixed(2)}× (aim ≤ 0.6×), `
        + `stale suggestions ${ours.stale} (aim 0).`
    ].join('\n');
}

export const COMPLETION_BENCH_SETUP = { keyDelayMs: KEY_DELAY_MS, pauseMs: PAUSE_MS, debounceMs: DEBOUNCE_MS, firstByteMs: FIRST_BYTE_MS, lines: TARGET_LINES.length };
