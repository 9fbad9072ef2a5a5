import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { openAITextStreamRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { openFile } from './theia-page';

const TOTAL = 'export function total(items: number[]): number {\n    let sum = 0;\n    for (const item of items) {\n        sum += item;\n    }\n    return sum;\n}\n';

function refactorConfiguration(serverUrl: string): Record<string, string> {
    return {
        '.qodeassist/providers/fake-openai.toml': `schema_version = 1\nname = "fake-openai"\nclient_api = "openai_compatible"\nurl = "${serverUrl}/v1"\napi_key_ref = "e2e"\n`,
        '.qodeassist/agents/fake-refactor.toml': 'schema_version = 1\nname = "fake-refactor"\nextends = "openai-refactor"\nprovider_instance = "fake-openai"\nmodel = "fake-model"\n',
        '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[refactor]\nagents = ["fake-refactor"]\n',
        'src/total.ts': TOTAL,
        'notes.txt': 'draft\n'
    };
}

describe('quick refactor in Chromium', function () {
    this.timeout(180_000);

    const session = useBrowserApp(fake => ({
        files: refactorConfiguration(fake.url),
        env: { E2E_API_KEY: 'sk-e2e-refactor-0123456789' }
    }), fake => fake
        .when({ bodyIncludes: 'use reduce', scenario: { kind: 'replay', recording: openAITextStreamRecording(['```ts\n', 'const sum = items', '.reduce((a, b) => a + b, 0);\n', '```']), chunkDelayMs: 400 } })
        .when({ bodyIncludes: 'clearer names', scenario: { kind: 'replay', recording: openAITextStreamRecording(['```ts\nlet total = 0;\nfor (const value of items) {\n    total += value;\n}\n```']) } })
        .when({ bodyIncludes: 'fail please', scenario: { kind: 'status', status: 401, body: 'invalid key' } }));
    const { fake, app } = session;
    let page: Page;
    before(async () => {
        page = session.page;
        await openFile(page, 'src/total.ts');
    });

    const zone = () => page.locator('.qa-refactor');
    const onDisk = () => readFileSync(join(app.workspace, 'src', 'total.ts'), 'utf8');
    const editorText = () => page.evaluate(() => Array.from(document.querySelectorAll('#theia-main-content-panel .monaco-editor .view-line'))
        .filter(line => !line.closest('.qa-refactor'))
        .map(line => (line.textContent ?? '').replace(/\u00a0/g, ' ')).join('\n'));
    const proposalText = () => page.evaluate(() => Array.from(document.querySelectorAll('.qa-refactor-proposal .view-line'))
        .map(line => (line.textContent ?? '').replace(/\u00a0/g, ' ')).join('\n'));

    /** Selects lines `from`..`to` (1-based) whole, as Shift+Down does, and opens the refactor with the hotkey. */
    async function refactorLines(from: number, to: number): Promise<void> {
        await page.locator('#theia-main-content-panel .monaco-editor .view-lines').first().click();
        await page.keyboard.press('Control+Home');
        for (let line = 1; line < from; line++) {
            await page.keyboard.press('ArrowDown');
        }
        for (let line = from; line <= to; line++) {
            await page.keyboard.press('Shift+ArrowDown');
        }
        await page.keyboard.press('Control+Alt+r');
        await page.locator('.qa-refactor .qa-refactor-input').waitFor({ timeout: 10_000 });
    }

    async function save(): Promise<void> {
        await page.locator('#theia-main-content-panel .monaco-editor .view-lines').first().click();
        await page.keyboard.press('Control+s');
        await page.locator('#theia-main-content-panel .lm-TabBar-tab.lm-mod-current.theia-mod-dirty').waitFor({ state: 'detached', timeout: 10_000 });
    }

    it('streams the answer into an inline diff, lets the proposal be edited, and Ctrl+Enter applies it as one undoable edit', async () => {
        await refactorLines(2, 5);
        await page.screenshot({ path: screenshotPath('refactor-input') });
        await page.locator('.qa-refactor .qa-refactor-input').fill('use reduce');
        await page.keyboard.press('Enter');
        // The proposal grows while the answer streams; the file is untouched meanwhile.
        await page.waitForFunction(() => /const sum = items$/.test(Array.from(document.querySelectorAll('.qa-refactor-proposal .view-line')).map(line => (line.textContent ?? '').replace(/\u00a0/g, ' ')).join('\n').trimEnd()), undefined, { timeout: 10_000 });
        assert.equal(await zone().getAttribute('data-phase'), 'running');
        assert.match(await zone().locator('.qa-refactor-progress').textContent() ?? '', /fake-refactor is rewriting the selection/);
        await page.screenshot({ path: screenshotPath('refactor-streaming') });
        await page.locator('.qa-refactor[data-phase=review]').waitFor({ timeout: 10_000 });
        assert.equal(await proposalText(), '    const sum = items.reduce((a, b) => a + b, 0);');
        assert.equal(await page.locator('#theia-main-content-panel .monaco-editor .qa-refactor-removed-line').count(), 4, 'the four replaced lines are marked');
        assert.equal(onDisk(), TOTAL, 'nothing is written before Accept');
        assert.match(await editorText(), /let sum = 0;/);
        const request = JSON.stringify(JSON.parse(fake.lastModelRequest()!.body).messages);
        assert.match(request, /<selection_start> {4}let sum = 0;/);
        await page.screenshot({ path: screenshotPath('refactor-review') });

        // The proposal is an editor: change it before accepting.
        await page.locator('.qa-refactor-proposal .view-lines').click();
        await page.keyboard.press('End');
        await page.keyboard.type(' // summed');
        await page.keyboard.press('Control+Enter');
        await zone().waitFor({ state: 'detached', timeout: 10_000 });
        await save();
        assert.equal(onDisk(), 'export function total(items: number[]): number {\n    const sum = items.reduce((a, b) => a + b, 0); // summed\n    return sum;\n}\n');
        // One undo takes the whole refactor back.
        await page.keyboard.press('Control+z');
        await save();
        assert.equal(onDisk(), TOTAL);
    });

    it('Stop cancels mid-stream: the HTTP request is aborted, the input stays, the file is untouched', async () => {
        await refactorLines(2, 5);
        await zone().locator('.qa-refactor-input').fill('use reduce');
        await page.keyboard.press('Enter');
        await page.waitForFunction(() => /const sum = items/.test(document.querySelector('.qa-refactor-proposal')?.textContent?.replace(/\u00a0/g, ' ') ?? ''), undefined, { timeout: 10_000 });
        await zone().locator('button[data-action=stop]').click();
        await page.locator('.qa-refactor[data-phase=input]').waitFor({ timeout: 10_000 });
        assert.equal(await fake.lastModelRequest()!.ended, 'aborted-by-client');
        assert.equal(await zone().locator('.qa-refactor-input').inputValue(), 'use reduce');
        assert.equal(await page.locator('.qa-refactor-removed-line').count(), 0);
        assert.equal(onDisk(), TOTAL);
        await page.keyboard.press('Escape');
        await zone().waitFor({ state: 'detached', timeout: 10_000 });
    });

    it('a quick action runs right away; Esc rejects and leaves the file as it was', async () => {
        await refactorLines(2, 5);
        await zone().locator('button[data-action=improve]').click();
        await page.locator('.qa-refactor[data-phase=review]').waitFor({ timeout: 10_000 });
        assert.equal(await proposalText(), '    let total = 0;\n    for (const value of items) {\n        total += value;\n    }');
        assert.match(JSON.stringify(JSON.parse(fake.lastModelRequest()!.body).messages), /clearer names/);
        await page.keyboard.press('Escape');
        await zone().waitFor({ state: 'detached', timeout: 10_000 });
        assert.equal(await page.locator('.qa-refactor-removed-line').count(), 0);
        assert.match(await editorText(), /let sum = 0;/);
        assert.equal(onDisk(), TOTAL);
        // "Repeat last" remembers the quick action's instruction.
        await refactorLines(2, 2);
        assert.match(await zone().locator('button[data-action=repeat]').getAttribute('title') ?? '', /clearer names/);
        await page.keyboard.press('Escape');
        await zone().waitFor({ state: 'detached', timeout: 10_000 });
    });

    it('saves an instruction to the library and picks it back from the searchable picker', async () => {
        await refactorLines(6, 6);
        await zone().locator('.qa-refactor-input').fill('Add JSDoc to this function.');
        await zone().locator('button[data-action=save-instruction]').click();
        const input = page.locator('.quick-input-widget input');
        await input.waitFor({ timeout: 10_000 });
        await input.fill('JSDoc');
        await input.press('Enter');
        const folder = join(app.root, 'home', '.qodeassist', 'instructions');
        await waitFor(() => existsSync(join(folder, 'jsdoc.json')));
        assert.deepEqual(JSON.parse(readFileSync(join(folder, 'jsdoc.json'), 'utf8')), { id: 'jsdoc', name: 'JSDoc', body: 'Add JSDoc to this function.', version: 1 });
        await zone().locator('.qa-refactor-input').fill('');
        await zone().locator('button[data-action=instructions]').click();
        await input.waitFor({ timeout: 10_000 });
        await input.fill('jsd');
        const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'JSDoc' }).first();
        await row.waitFor({ timeout: 10_000 });
        await page.screenshot({ path: screenshotPath('refactor-instructions-picker') });
        await row.click();
        assert.equal(await zone().locator('.qa-refactor-input').inputValue(), 'Add JSDoc to this function.');
        await page.keyboard.press('Escape');
        await zone().waitFor({ state: 'detached', timeout: 10_000 });
        assert.deepEqual(readdirSync(folder), ['jsdoc.json']);
    });

    it('tools ask before writing, as in the chat; an error shows inline with its affordance', async () => {
        fake.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 't1', name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'draft', new_text: 'final' } }]) },
            { kind: 'replay', recording: openAITextStreamRecording(['```ts\n    return sum;\n```']) }
        );
        await refactorLines(6, 6);
        await zone().locator('input[data-option=tools]').check();
        await zone().locator('.qa-refactor-input').fill('tidy the notes too');
        await page.keyboard.press('Enter');
        const prompt = zone().locator('.qa-permission[data-tool=edit_file]');
        await prompt.waitFor({ timeout: 10_000 });
        await page.screenshot({ path: screenshotPath('refactor-tool-permission') });
        await prompt.locator('button[data-answer=deny]').click();
        await page.locator('.qa-refactor[data-phase=review]').waitFor({ timeout: 10_000 });
        assert.equal(readFileSync(join(app.workspace, 'notes.txt'), 'utf8'), 'draft\n', 'the denied write did not happen');
        assert.equal(await zone().locator('.qa-refactor-tool[data-state=failed]').count() + await zone().locator('.qa-refactor-tool[data-state=done]').count(), 1);
        await page.keyboard.press('Escape');
        await zone().waitFor({ state: 'detached', timeout: 10_000 });

        await refactorLines(6, 6);
        await zone().locator('.qa-refactor-input').fill('fail please');
        await page.keyboard.press('Enter');
        const error = zone().locator('.qa-error[data-category=Auth]');
        await error.waitFor({ timeout: 10_000 });
        assert.deepEqual(await error.locator('button').evaluateAll(buttons => buttons.map(button => button.getAttribute('data-action'))), ['open-settings', 'retry']);
        await page.screenshot({ path: screenshotPath('refactor-error') });
        await page.keyboard.press('Escape');
        await zone().waitFor({ state: 'detached', timeout: 10_000 });
        assert.equal(onDisk(), TOTAL);
    });

    it('opens from the editor context menu', async () => {
        await page.locator('#theia-main-content-panel .monaco-editor .view-lines').first().click({ button: 'right' });
        await page.locator('.lm-Menu-item', { hasText: 'QodeAssist: Quick Refactor…' }).click();
        await zone().waitFor({ timeout: 10_000 });
        assert.equal(await zone().getAttribute('data-phase'), 'input');
        await page.keyboard.press('Escape');
        await zone().waitFor({ state: 'detached', timeout: 10_000 });
    });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
        if (Date.now() > deadline) {
            throw new Error('Timed out waiting for a condition.');
        }
        await new Promise(resolve => setTimeout(resolve, 50));
    }
}
