import * as assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { ollamaGenerateRecording } from '../fake-provider/recordings';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { openFile } from './theia-page';

const FILLER = Array.from({ length: 14 }, (_, index) => `export const c${index + 6} = ${index + 6};`);
/** Line 3 defines `scale`; line 20 calls it: renaming the function at line 3 makes the call at line 20 the next edit. */
const SHAPES = ['// Shapes', '', 'export function scale(factor: number, value: number): number {', '    return factor * value;', '}', ...FILLER, 'export const doubled = scale(2, 10);', ''].join('\n');

/**
 * Like SHAPES, its function named `measure`, with a second call at line 30: after the rename's first use is applied, its
 * second is the next edit. (Another name than SHAPES' so that the editor's word suggestions offer no word from it.)
 */
const CHAIN = [...SHAPES.split('\n').slice(0, 20), ...Array.from({ length: 9 }, (_, index) => `export const e${index + 21} = ${index + 21};`), 'export const again = scale(2, 10);', '']
    .join('\n').replace(/scale\(/g, 'measure(');

/** 100 lines: the call at line 55, the function at line 70 — the edit is far enough to scroll out of view. */
const LONG = Array.from({ length: 100 }, (_, index) => index === 54 ? 'export const doubled = grow(2, 10);'
    : index === 69 ? 'export function grow(factor: number, value: number): number { return factor * value; }' : `export const d${index + 1} = ${index + 1};`).join('\n');

/**
 * Zeta's answer to any request: the editable region echoed with the first call that still uses
 * another name renamed to whatever the function at the top of the region is called now — a model
 * that continues the rename one use at a time.
 */
function zetaAnswer(body: string): string {
    const prompt = JSON.parse(body).prompt as string;
    const region = prompt.slice(prompt.indexOf('<|editable_region_start|>\n') + '<|editable_region_start|>\n'.length, prompt.indexOf('\n<|editable_region_end|>'))
        .replace('<|user_cursor_is_here|>', '');
    const name = /export function (\w+)\(/.exec(region)?.[1] ?? 'scale';
    let renamed = false;
    const rewritten = region.replace(/= (\w+)\(2, 10\)/g, (call, used) => {
        if (renamed || used === name) {
            return call;
        }
        renamed = true;
        return `= ${name}(2, 10)`;
    });
    return ollamaGenerateRecording(['<|editable_region_start|>\n', rewritten, '\n<|editable_region_end|>\n```']);
}

describe('next edit suggestions in Chromium', function () {
    this.timeout(180_000);

    const session = useBrowserApp(fake => ({
        files: {
            '.qodeassist/providers/fake-ollama.toml': `schema_version = 1\nname = "fake-ollama"\nclient_api = "ollama"\nurl = "${fake.url}"\n`,
            '.qodeassist/agents/fake-zeta.toml': 'schema_version = 1\nname = "fake-zeta"\nextends = "zeta-ollama"\nprovider_instance = "fake-ollama"\nmodel = "fake-model"\n',
            '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[next_edit]\nagents = ["fake-zeta"]\n',
            '.qodeassistignore': 'secret/\n',
            'src/shapes.ts': SHAPES,
            'src/locked.ts': SHAPES.replace(/scale/g, 'lockedScale'),
            'secret/keys.ts': SHAPES.replace(/scale/g, 'secretScale'),
            'src/long.ts': LONG,
            'src/chain.ts': CHAIN
        },
        // Turning next edits on is the user's own setting: a repository's .theia/settings.json may only turn them off.
        userFiles: { '.theia/settings.json': JSON.stringify({ 'qodeassist.nextEdit.enabled': true }) },
        // The editor's word suggestions would take Tab (the suggest widget has it first), as in the completion e2e files.
        settings: {
            'qodeassist.nextEdit.debounceMs': 700, 'qodeassist.completion.enabled': false,
            'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' }, 'editor.wordBasedSuggestions': 'off'
        }
    }), fake => fake.when({ bodyIncludes: '<|editable_region_start|>', scenario: { kind: 'dynamic', respond: body => ({ kind: 'replay', recording: zetaAnswer(body) }) } }));
    const { fake, app } = session;
    let page: Page;
    before(() => { page = session.page; });

    const added = () => page.locator('.monaco-editor .qa-next-edit-added').first();
    const removed = () => page.locator('.monaco-editor .qa-next-edit-removed').first();
    const modelRequests = () => fake.requests.filter(request => request.path === '/api/generate');

    /** Puts the cursor after `column` characters of a line (1-based) of the active editor. */
    async function cursorAt(line: number, column: number): Promise<void> {
        await page.locator('#theia-main-content-panel .monaco-editor .view-lines').first().click();
        await page.keyboard.press('Control+Home');
        for (let i = 1; i < line; i++) {
            await page.keyboard.press('ArrowDown');
        }
        await page.keyboard.press('Home');
        for (let i = 0; i < column; i++) {
            await page.keyboard.press('ArrowRight');
        }
    }

    async function saved(file: string): Promise<string> {
        await page.keyboard.press('Control+s');
        await page.waitForTimeout(300);
        return readFileSync(join(app.workspace, file), 'utf8');
    }

    /** The cursor's line, as the status bar says it once it says `line` (it follows the cursor a moment later), or after 3 s. */
    async function cursorLine(line: number): Promise<number> {
        await page.locator('#theia-statusBar', { hasText: `Ln ${line},` }).first().waitFor({ timeout: 3_000 }).catch(() => undefined);
        const text = await page.locator('#theia-statusBar', { hasText: /Ln \d+/ }).first().innerText();
        return Number(/Ln (\d+)/.exec(text)![1]);
    }

    it('an edit at line 3 brings a suggestion at line 20: Tab jumps there, Tab again applies it exactly', async () => {
        await openFile(page, 'src/shapes.ts');
        await cursorAt(3, 'export function scale'.length);
        await page.keyboard.type('By', { delay: 30 });
        await added().waitFor({ timeout: 15_000 });
        assert.equal(await added().innerText(), 'scaleBy');
        assert.equal(await removed().innerText(), 'scale');
        assert.equal(await page.locator('.monaco-editor .qa-next-edit-gutter').count(), 1, 'one gutter marker');
        const request = JSON.parse(modelRequests().at(-1)!.body);
        assert.match(request.prompt, /User edited "src\/shapes\.ts":\n```diff\n[\s\S]*-export function scale\(factor[\s\S]*\+export function scaleBy\(factor/);
        await page.screenshot({ path: screenshotPath('next-edit-suggestion') });
        assert.equal(await cursorLine(3), 3);
        await page.keyboard.press('Tab');
        assert.equal(await cursorLine(20), 20, 'the first Tab jumps to the edit');
        assert.equal(await saved('src/shapes.ts'), SHAPES.replace('scale(factor', 'scaleBy(factor'), 'jumping changes nothing');
        await page.keyboard.press('Tab');
        await added().waitFor({ state: 'detached', timeout: 5_000 });
        assert.equal(await saved('src/shapes.ts'), SHAPES.replace('scale(factor', 'scaleBy(factor').replace('= scale(2, 10)', '= scaleBy(2, 10)'));
    });

    it('Esc dismisses a suggestion and leaves the file as it was', async () => {
        await cursorAt(3, 'export function scaleBy'.length);
        await page.keyboard.type('X', { delay: 30 });
        await added().waitFor({ timeout: 15_000 });
        assert.equal(await added().innerText(), 'scaleByX');
        await page.keyboard.press('Escape');
        await added().waitFor({ state: 'detached', timeout: 5_000 });
        assert.equal(await removed().count(), 0);
        assert.ok((await saved('src/shapes.ts')).includes('= scaleBy(2, 10)'), 'the call is as it was');
    });

    it('typing over a suggestion drops it at once', async () => {
        await cursorAt(3, 'export function scaleByX'.length);
        await page.keyboard.type('Y', { delay: 30 });
        await added().waitFor({ timeout: 15_000 });
        assert.equal(await added().innerText(), 'scaleByXY');
        const asked = modelRequests().length;
        await page.keyboard.type('Z');
        // Before the pause (700 ms) could bring a new one: the old suggestion is gone.
        await added().waitFor({ state: 'detached', timeout: 500 });
        assert.equal(modelRequests().length, asked, 'dropped before any new request');
        await added().waitFor({ timeout: 15_000 });
        assert.equal(await added().innerText(), 'scaleByXYZ', 'the next pause asks again, for the text as it is now');
        await page.keyboard.press('Escape');
    });

    it('Tab that applies asks again at once: the rename\'s second use (line 30) follows its first (line 20) with no typing between', async () => {
        await openFile(page, 'src/chain.ts');
        await cursorAt(3, 'export function measure'.length);
        await page.keyboard.type('By', { delay: 30 });
        await added().waitFor({ timeout: 15_000 });
        const first = JSON.parse(modelRequests().at(-1)!.body).prompt as string;
        assert.match(first, /User edited "src\/shapes\.ts":\n```diff\n/, 'another file\'s recent edits go along');
        assert.ok(first.indexOf('User edited "src/shapes.ts"') < first.indexOf('User edited "src/chain.ts"'), 'this file\'s edits come last, next to the excerpt');
        await page.keyboard.press('Tab');
        assert.equal(await cursorLine(20), 20);
        const asked = modelRequests().length;
        await page.keyboard.press('Tab');
        // The chained ask: no key but Tab was pressed, and its recent edits hold the edit just applied.
        const deadline = Date.now() + 15_000;
        while (modelRequests().length === asked && Date.now() < deadline) {
            await page.waitForTimeout(50);
        }
        assert.match(JSON.parse(modelRequests().at(-1)!.body).prompt, /\+export const doubled = measureBy\(2, 10\);/);
        await added().waitFor({ timeout: 15_000 });
        assert.equal(await added().innerText(), 'measureBy');
        await page.keyboard.press('Tab');
        assert.equal(await cursorLine(30), 30, 'the second suggestion is at line 30');
        await page.keyboard.press('Tab');
        await added().waitFor({ state: 'detached', timeout: 5_000 });
        assert.equal(await saved('src/chain.ts'), CHAIN.replace(/measure\(/g, 'measureBy('));
    });

    it('a suggestion is dropped when the file changes under it without typing (written on disk, as a tool or another program would)', async () => {
        await cursorAt(3, 'export function measureBy'.length);
        await page.keyboard.type('X', { delay: 30 });
        await added().waitFor({ timeout: 15_000 });
        assert.equal(await added().innerText(), 'measureByX');
        const onDisk = CHAIN.replace(/measure\(/g, 'measureByX(');
        await saved('src/chain.ts');
        assert.equal(await added().count(), 1, 'saving changes no text: the suggestion stays');
        writeFileSync(join(app.workspace, 'src/chain.ts'), onDisk);
        await added().waitFor({ state: 'detached', timeout: 15_000 });
        assert.equal(await removed().count(), 0);
        await page.waitForTimeout(1500);
        assert.equal(await added().count(), 0, 'the new text needs no edit: nothing shows again');
        assert.equal(readFileSync(join(app.workspace, 'src/chain.ts'), 'utf8'), onDisk);
    });

    it('an edit out of view is announced in the editor\'s corner; Tab brings it into view', async () => {
        await openFile(page, 'src/long.ts');
        await cursorAt(70, 'export function grow'.length);
        await page.keyboard.type('Big', { delay: 30 });
        await added().waitFor({ timeout: 15_000 });
        // To the file's top: the cursor moves, the text does not, so the suggestion stays — out of view.
        await page.keyboard.press('Control+Home');
        const hint = page.locator('.monaco-editor .qa-next-edit-hint');
        await hint.waitFor({ timeout: 5_000 });
        assert.equal(await hint.innerText(), '↓ Next edit at line 55 — Tab to jump, Esc to dismiss');
        await page.screenshot({ path: screenshotPath('next-edit-off-screen-hint') });
        await page.keyboard.press('Tab');
        await hint.waitFor({ state: 'detached', timeout: 5_000 });
        assert.equal(await cursorLine(55), 55);
        await page.keyboard.press('Escape');
        await added().waitFor({ state: 'detached', timeout: 5_000 });
    });

    it('no request while the editor is read-only', async () => {
        chmodSync(join(app.workspace, 'src/locked.ts'), 0o444);
        await openFile(page, 'src/locked.ts');
        const asked = modelRequests().length;
        await cursorAt(3, 'export function lockedScale'.length);
        await page.keyboard.type('By', { delay: 30 });
        await page.waitForTimeout(1500);
        assert.equal(modelRequests().length, asked);
        assert.ok(!fake.requests.some(request => request.body.includes('lockedScale')), 'the read-only file was never sent');
        assert.equal(await added().count(), 0);
    });

    it('attack: no request for a file the ignore rules hide, its text never reaches the model', async () => {
        await openFile(page, 'secret/keys.ts');
        await cursorAt(3, 'export function secretScale'.length);
        await page.keyboard.type('By', { delay: 30 });
        await page.waitForTimeout(1500);
        assert.ok(!fake.requests.some(request => request.body.includes('secretScale')), 'nothing of the ignored file was sent');
        assert.equal(await added().count(), 0);
        // An edit elsewhere carries the other files' recent edits: never the ignored one's.
        await openFile(page, 'src/long.ts');
        const asked = modelRequests().length;
        await cursorAt(70, 'export function growBig'.length);
        await page.keyboard.type('Q', { delay: 30 });
        await added().waitFor({ timeout: 15_000 });
        assert.ok(modelRequests().length > asked);
        assert.match(JSON.parse(modelRequests().at(-1)!.body).prompt, /User edited "src\/chain\.ts"/, 'another file\'s edits went along');
        assert.ok(!fake.requests.some(request => request.body.includes('secretScale')), 'the ignored file\'s edits never left');
    });
});
