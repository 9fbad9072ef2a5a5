import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { ollamaGenerateRecording } from '../fake-provider/recordings';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { openFile } from './theia-page';

/** Hint mode (the cost mode for paid APIs), a language turned off, and the acceptance figures in the status item's popover. */
describe('completion modes and acceptance figures in Chromium', function () {
    this.timeout(300_000);

    const session = useBrowserApp(fake => ({
        files: {
            '.qodeassist/providers/fake-ollama.toml': `schema_version = 1\nname = "fake-ollama"\nclient_api = "ollama"\nurl = "${fake.url}"\n`,
            '.qodeassist/agents/fake-fim.toml': 'schema_version = 1\nname = "fake-fim"\nextends = "ollama-fim-qwen25coder"\nprovider_instance = "fake-ollama"\nmodel = "fake-model"\n',
            '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[completion]\nagents = ["fake-fim"]\n',
            'src/calc.ts': 'export function total(price: number, count: number) {\n    \n}\n',
            'notes.md': '# Notes\n\n'
        },
        // The trigger is the user's choice (what they pay for): a repository's settings cannot change it.
        userFiles: { '.theia/settings.json': JSON.stringify({ 'qodeassist.completion.trigger': 'hint', 'qodeassist.completion.languages': { markdown: 'off' } }) },
        // The word list would cover the ghost text.
        settings: { 'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' }, 'editor.wordBasedSuggestions': 'off' }
    }), fake => fake
        .when({ bodyIncludes: 'const sum = price * count<|fim_suffix|>', scenario: { kind: 'replay', recording: ollamaGenerateRecording([' * 1.2;']) } })
        .when({ bodyIncludes: 'count * 1.2;\\n    <|fim_suffix|>', scenario: { kind: 'replay', recording: ollamaGenerateRecording(['return sum;']) } })
        .setDefault({ kind: 'replay', recording: ollamaGenerateRecording(['']) }));
    const { fake, app } = session;
    let page: Page;
    before(() => { page = session.page; });

    const modelRequests = () => fake.requests.filter(request => request.method === 'POST');
    const ghost = () => page.locator('.monaco-editor .ghost-text-decoration, .monaco-editor .ghost-text').first();
    const ghostText = () => page.evaluate(() => Array.from(document.querySelectorAll('.monaco-editor .ghost-text-decoration, .monaco-editor .ghost-text'))
        .map(element => (element.textContent ?? '').replace(/\u00a0/g, ' ')).join('\n'));
    /** Hovers the completion's status item and returns its popover's text once it shows `expected`. */
    async function popover(expected: string): Promise<string> {
        const hover = page.locator('.theia-hover', { hasText: expected });
        for (let attempt = 0; attempt < 3; attempt++) {
            await page.mouse.move(700, 300);
            await page.waitForTimeout(300);
            await page.locator('#status-bar-qodeassist-completion').hover();
            try {
                await hover.waitFor({ timeout: 5_000 });
                return (await hover.textContent() ?? '').replace(/\u00a0/g, ' ');
            } catch {
                // The hover came before the figures were read, or went: hover again.
            }
        }
        throw new Error(`The completion popover never showed "${expected}": ${await page.locator('.theia-hover').allTextContents()}`);
    }

    it('hint mode asks the model nothing while typing, not even at `=`, until the Suggest Completion key', async () => {
        await openFile(page, 'src/calc.ts');
        await page.locator('.monaco-editor .view-lines').first().click();
        await page.keyboard.press('Control+Home');
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('End');
        await page.keyboard.type('const sum = price * count', { delay: 40 });
        await page.waitForTimeout(1_500);
        assert.equal(modelRequests().length, 0, 'typing and a pause in ordinary text cost nothing');
        assert.equal(await ghostText(), '');
        await page.screenshot({ path: screenshotPath('completion-hint-mode-quiet') });

        await page.keyboard.press('Alt+\\');
        await ghost().waitFor({ timeout: 10_000 });
        assert.equal(await ghostText(), ' * 1.2;');
        assert.equal(modelRequests().length, 1);
        assert.ok(modelRequests()[0].body.includes('const sum = price * count<|fim_suffix|>'));
        await page.screenshot({ path: screenshotPath('completion-hint-mode-asked') });
        await page.keyboard.press('Tab');
        await ghost().waitFor({ state: 'detached', timeout: 5_000 });
    });

    it('hint mode: a pause on a fresh line asks; the suggestion accepted there is then edited away', async () => {
        const before = modelRequests().length;
        await page.keyboard.press('Enter');
        await ghost().waitFor({ timeout: 10_000 });
        assert.equal(await ghostText(), 'return sum;');
        assert.ok(modelRequests().slice(before).some(request => request.body.includes('count * 1.2;\\n    <|fim_suffix|>')));
        await page.keyboard.press('Tab');
        await ghost().waitFor({ state: 'detached', timeout: 5_000 });
        // The user changes their mind: the accepted line is replaced.
        await page.keyboard.press('Home');
        await page.keyboard.press('Shift+End');
        await page.keyboard.type('return 0;', { delay: 20 });
        await page.keyboard.press('Escape');
        await page.keyboard.press('Control+s');
        await page.waitForTimeout(300);
        assert.deepEqual(readFileSync(join(app.workspace, 'src/calc.ts'), 'utf8').split('\n').slice(1, 3), ['    const sum = price * count * 1.2;', '    return 0;']);
    });

    it('the status item\'s popover shows the figures: shown, accepted, and 30 s later what is still there', async () => {
        const soon = await popover('will be looked at again');
        assert.match(soon, /Hint mode: asks only on Alt\+\\ \(QodeAssist: Suggest Completion\)/);
        assert.match(soon, /Per language: markdown off\./);
        assert.match(soon, /typescript\s*fake-fim\s*2\s*2 \(100%\)\s*0 of 0/, 'by the file\'s language (the editor says plaintext: this app has no language extension)');
        assert.match(soon, /2 accepted suggestions will be looked at again 30 s after acceptance\./);
        assert.match(soon, /counted in this browser only, never sent anywhere/);
        await page.screenshot({ path: screenshotPath('completion-figures-popover') });
        await page.mouse.move(700, 300);

        await page.waitForTimeout(31_000);
        const later = await popover('1 of 2');
        assert.match(later, /typescript\s*fake-fim\s*2\s*2 \(100%\)\s*1 of 2 \(50%\)/, 'the edited one is not still there');
        assert.ok(!later.includes('will be looked at again'));
        await page.screenshot({ path: screenshotPath('completion-figures-after-30s') });
        const stored = await page.evaluate(() => Object.entries(localStorage).filter(([key]) => key.endsWith('qodeassist.completion.figures')).map(([, value]) => value));
        assert.equal(stored.length, 1, 'kept in this browser\'s storage');
        assert.deepEqual(JSON.parse(stored[0]).rows, [{ language: 'typescript', agent: 'fake-fim', shown: 2, accepted: 2, checked: 2, stillPresent: 1 }]);
        assert.ok(!modelRequests().some(request => request.body.includes('stillPresent')), 'the figures never reach a provider');

        await page.locator('.theia-hover a', { hasText: 'Reset figures' }).click();
        await page.mouse.move(700, 300);
        const reset = await popover('No suggestion shown yet');
        assert.ok(!reset.includes('fake-fim'));
    });

    it('a language turned off asks nothing, not even on the key', async () => {
        await openFile(page, 'notes.md');
        await page.locator('.monaco-editor .view-lines').first().click();
        await page.keyboard.press('Control+End');
        const before = modelRequests().length;
        await page.keyboard.type('Some text, = (', { delay: 20 });
        await page.keyboard.press('Alt+\\');
        await page.waitForTimeout(1_500);
        assert.equal(modelRequests().length, before);
        assert.equal(await ghostText(), '');
    });
});
