import { Page } from 'playwright-core';
import { BrowserAppProcess } from '../e2e/browser-app-process';
import { launchChromium } from '../e2e/chromium';
import { openFile, waitForTheiaShell } from '../e2e/theia-page';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { ollamaGenerateRecording } from '../fake-provider/recordings';

/**
 * Next edit suggestions in the browser against a fake Zeta: the time from the last keystroke of an
 * edit to the suggestion on screen (p50/p95), and the share of shown suggestions that were stale (for
 * a text the user had already changed). Half the rounds type on while the request is under way.
 * `node test/lib/bench/next-edit-latency-benchmark.js [rounds]`; needs the browser-app built.
 */
const DEBOUNCE_MS = 300;
const FIRST_BYTE_MS = 150;
const FILLER = Array.from({ length: 14 }, (_, index) => `export const c${index + 6} = ${index + 6};`);
const FILE = ['// Shapes', '', 'export function scale(factor: number, value: number): number {', '    return factor * value;', '}', ...FILLER, 'export const doubled = scale(2, 10);', ''].join('\n');

function zetaAnswer(body: string): string {
    const prompt = JSON.parse(body).prompt as string;
    const region = prompt.slice(prompt.indexOf('<|editable_region_start|>\n') + 26, prompt.indexOf('\n<|editable_region_end|>')).replace('<|user_cursor_is_here|>', '');
    const name = /export function (\w+)\(/.exec(region)?.[1] ?? 'scale';
    return ollamaGenerateRecording(['<|editable_region_start|>\n', region.replace(/= \w+\(2, 10\)/, `= ${name}(2, 10)`), '\n<|editable_region_end|>\n```']);
}

/** Nearest-rank percentile (0 < p ≤ 100); undefined without values. */
function percentile(values: readonly number[], p: number): number | undefined {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length ? sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] : undefined;
}

async function main(): Promise<void> {
    const rounds = Number(process.argv[2] ?? 20);
    const fake = new FakeProviderServer();
    await fake.start();
    let askedAt = 0;
    fake.when({
        bodyIncludes: '<|editable_region_start|>', scenario: {
            kind: 'dynamic', respond: body => {
                askedAt = Date.now();
                return { kind: 'replay', recording: zetaAnswer(body), firstByteDelayMs: FIRST_BYTE_MS };
            }
        }
    });
    const app = new BrowserAppProcess();
    await app.start({
        files: {
            '.qodeassist/providers/fake-ollama.toml': `schema_version = 1\nname = "fake-ollama"\nclient_api = "ollama"\nurl = "${fake.url}"\n`,
            '.qodeassist/agents/fake-zeta.toml': 'schema_version = 1\nname = "fake-zeta"\nextends = "zeta-ollama"\nprovider_instance = "fake-ollama"\nmodel = "fake-model"\n',
            '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[next_edit]\nagents = ["fake-zeta"]\n',
            'src/shapes.ts': FILE
        },
        // Turning next edits on is the user's own setting: a workspace's settings may only turn them off.
        userFiles: { '.theia/settings.json': JSON.stringify({ 'qodeassist.nextEdit.enabled': true }) },
        settings: {
            'qodeassist.nextEdit.debounceMs': DEBOUNCE_MS, 'qodeassist.completion.enabled': false,
            'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' }, 'editor.wordBasedSuggestions': 'off'
        }
    });
    const chromium = await launchChromium();
    try {
        const page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(app.url);
        await waitForTheiaShell(page, true);
        await openFile(page, 'src/shapes.ts');
        const latencies: number[] = [];
        /** Last keystroke → the request at the model, and the request at the model → the suggestion shown. */
        const toRequest: number[] = [];
        const toShown: number[] = [];
        let shown = 0;
        let stale = 0;
        let missed = 0;
        // The moment the suggestion is drawn, seen by the page itself (a locator's polling would add its own interval).
        await page.evaluate(() => {
            const watched = window as unknown as { qaShownAt: number };
            watched.qaShownAt = 0;
            new MutationObserver(() => {
                if (!watched.qaShownAt && document.querySelector('.monaco-editor .qa-next-edit-added')) {
                    watched.qaShownAt = Date.now();
                }
            }).observe(document.body, { subtree: true, childList: true, attributes: true });
        });
        for (let round = 0; round < rounds; round++) {
            await endOfName(page);
            await page.evaluate(() => { (window as unknown as { qaShownAt: number }).qaShownAt = 0; });
            const letter = String.fromCharCode(65 + (round % 26));
            await page.keyboard.type(letter);
            if (round % 2 === 1) {
                // Types on once the request is under way: its answer is for a text that is gone.
                await page.waitForTimeout(DEBOUNCE_MS + FIRST_BYTE_MS / 2);
                await page.keyboard.type(letter.toLowerCase());
            }
            const typedAt = Date.now();
            const appeared = await page.locator('.monaco-editor .qa-next-edit-added').first().waitFor({ timeout: 5_000 }).then(() => true, () => false);
            if (!appeared) {
                missed++;
                continue;
            }
            const now = await page.evaluate(() => (window as unknown as { qaShownAt: number }).qaShownAt);
            latencies.push(now - typedAt);
            toRequest.push(askedAt - typedAt);
            toShown.push(now - askedAt);
            shown++;
            const name = await page.evaluate(() => /export function (\w+)\(/.exec(document.querySelector('.monaco-editor .view-lines')?.textContent?.replace(/\u00a0/g, ' ') ?? '')?.[1]);
            const suggested = (await page.locator('.monaco-editor .qa-next-edit-added').first().innerText()).trim();
            if (suggested !== name) {
                stale++;
            }
            await page.keyboard.press('Escape');
        }
        const ms = (value: number | undefined) => value === undefined ? '—' : `${value} ms`;
        console.log(`next edit latency: ${rounds} rounds (every other one types on while its request runs), debounce ${DEBOUNCE_MS} ms, fake first byte ${FIRST_BYTE_MS} ms`);
        console.log(`pause→shown p50 ${ms(percentile(latencies, 50))}  p95 ${ms(percentile(latencies, 95))}; shown ${shown}, none within 5 s ${missed}, stale when shown ${stale} (${shown ? (100 * stale / shown).toFixed(0) : 0}%)`);
        console.log(`of which keystroke→request at the model p50 ${ms(percentile(toRequest, 50))}, request→shown p50 ${ms(percentile(toShown, 50))} (first byte ${FIRST_BYTE_MS} ms included)`);
        console.log(`model requests ${fake.requests.filter(request => request.path === '/api/generate').length}`);
    } finally {
        await chromium.close();
        await app.stop();
        await fake.stop();
    }
}

/** The cursor at the end of the function's name on line 3. */
async function endOfName(page: Page): Promise<void> {
    await page.locator('#theia-main-content-panel .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Home');
    const line = await page.evaluate(() => document.querySelectorAll('.monaco-editor .view-line')[2]?.textContent?.replace(/\u00a0/g, ' ') ?? '');
    const end = line.indexOf('(');
    for (let i = 0; i < end; i++) {
        await page.keyboard.press('ArrowRight');
    }
}

if (require.main === module) {
    main().catch(error => {
        console.error(error);
        process.exit(1);
    });
}

