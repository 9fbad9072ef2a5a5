import * as assert from 'node:assert/strict';
import { Page } from 'playwright-core';
import { ollamaGenerateRecording } from '../fake-provider/recordings';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { openFile, runCommand } from './theia-page';

/**
 * Cross-file context in the IDE: a FIM agent with a repository format gets the definitions the
 * file imports (read by the backend, ignore rules applied) and a region edited in another editor
 * (tracked in the browser), and the completion log lists what went, with its tokens.
 */
describe('completion cross-file context in Chromium', function () {
    this.timeout(300_000);

    const session = useBrowserApp(fake => ({
        files: {
            '.qodeassist/providers/fake-ollama.toml': `schema_version = 1\nname = "fake-ollama"\nclient_api = "ollama"\nurl = "${fake.url}"\n`,
            '.qodeassist/agents/fake-fim.toml': 'schema_version = 1\nname = "fake-fim"\nextends = "ollama-fim-qwen25coder"\nprovider_instance = "fake-ollama"\nmodel = "fake-model"\n',
            '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[completion]\nagents = ["fake-fim"]\n',
            '.qodeassistignore': 'src/secret.ts\n',
            'src/cart.ts': 'export interface Cart {\n    items: number[];\n}\n\nexport function totalOf(cart: Cart, taxRate: number): number {\n    return 0;\n}\n',
            'src/secret.ts': 'export const API_TOKEN = "do-not-send-0123";\n',
            'src/rates.ts': 'export const VAT = 0.2;\n',
            'src/checkout.ts': "import { Cart, totalOf } from './cart';\nimport { API_TOKEN } from './secret';\n\nexport function pay(cart: Cart) {\n    \n}\n"
        },
        settings: { 'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' }, 'editor.wordBasedSuggestions': 'off', 'qodeassist.completion.debounceMs': 50 }
    }), fake => fake
        .when({ bodyIncludes: 'const sum = <|fim_suffix|>', scenario: { kind: 'replay', recording: ollamaGenerateRecording(['totalOf(cart, VAT);']) } })
        .setDefault({ kind: 'replay', recording: ollamaGenerateRecording(['']) }));
    const { fake } = session;
    let page: Page;
    before(() => { page = session.page; });

    const ghost = () => page.locator('.monaco-editor .ghost-text-decoration, .monaco-editor .ghost-text').first();

    it('sends the imported definitions and a recent edit of another file in Qwen\'s repository format, never an ignored file', async () => {
        // An edit in another editor: the browser keeps it as a recent region.
        await openFile(page, 'src/rates.ts');
        await page.locator('.monaco-editor .view-lines').first().click();
        await page.keyboard.press('Control+End');
        await page.keyboard.type('export const REDUCED_VAT = 0.07;', { delay: 10 });
        await page.keyboard.press('Control+s');

        await openFile(page, 'src/checkout.ts');
        await page.locator('.monaco-editor .view-lines').first().click();
        await page.keyboard.press('Control+Home');
        for (let i = 0; i < 4; i++) {
            await page.keyboard.press('ArrowDown');
        }
        await page.keyboard.press('End');
        await page.keyboard.type('const sum = ', { delay: 20 });
        await ghost().waitFor({ timeout: 15_000 });

        const request = fake.requests.find(entry => entry.body.includes('const sum = <|fim_suffix|>'))!;
        const prompt = JSON.parse(request.body).prompt as string;
        assert.match(prompt, /^<\|repo_name\|>/);
        assert.ok(prompt.includes('<|file_sep|>src/cart.ts\nexport interface Cart {\n    items: number[];\n}\n\nexport function totalOf(cart: Cart, taxRate: number): number {\n'), prompt);
        assert.ok(prompt.includes('<|file_sep|>src/rates.ts\n') && prompt.includes('export const REDUCED_VAT = 0.07;'), 'the recent edit of rates.ts went');
        assert.ok(prompt.includes('<|file_sep|>src/checkout.ts\n<|fim_prefix|>'), 'the current file comes last');
        assert.ok(!request.body.includes('do-not-send-0123'), 'the ignored file\'s declaration did not go');

        await runCommand(page, 'QodeAssist: Show Completion Log');
        const log = page.locator('.theia-output', { hasText: 'context: ' });
        await log.waitFor({ timeout: 10_000 });
        const text = (await log.textContent() ?? '').replace(/\u00a0/g, ' ');
        assert.match(text, /context: .*definition src\/cart\.ts \(Cart\) ~\d+/);
        assert.match(text, /recent-edit src\/rates\.ts ~\d+/);
        await page.screenshot({ path: screenshotPath('completion-context-log') });
    });
});
