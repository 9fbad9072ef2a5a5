import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { ollamaGenerateRecording, openAITextRecording } from '../fake-provider/recordings';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { openFile } from './theia-page';

/** A FIM agent for TypeScript and an instruct agent for Python, both on the fake server, first in the completion roster. */
function completionConfiguration(serverUrl: string): Record<string, string> {
    return {
        '.qodeassist/providers/fake-ollama.toml': `schema_version = 1\nname = "fake-ollama"\nclient_api = "ollama"\nurl = "${serverUrl}"\n`,
        '.qodeassist/providers/fake-openai.toml': `schema_version = 1\nname = "fake-openai"\nclient_api = "openai_compatible"\nurl = "${serverUrl}/v1"\napi_key_ref = "e2e"\n`,
        '.qodeassist/agents/fake-fim.toml': 'schema_version = 1\nname = "fake-fim"\nextends = "ollama-fim-qwen25coder"\nprovider_instance = "fake-ollama"\nmodel = "fake-model"\n',
        '.qodeassist/agents/fake-instruct.toml': 'schema_version = 1\nname = "fake-instruct"\nextends = "openai-completion"\nprovider_instance = "fake-openai"\nmodel = "fake-model"\n\n[match]\nfile = ["*.py"]\n',
        '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[completion]\nagents = ["fake-instruct", "fake-fim"]\n',
        'src/math.ts': 'export function add(a: number, b: number) {\n    \n}\n',
        'src/tool.py': 'def greet(name):\n    \n'
    };
}

describe('inline completion in Chromium', function () {
    this.timeout(180_000);

    const session = useBrowserApp(fake => ({
        files: completionConfiguration(fake.url),
        settings: { 'qodeassist.completion.debounceMs': 50 },
        env: { E2E_API_KEY: 'sk-e2e-completion-0123456789' }
    }), fake => fake
        .when({ bodyIncludes: '    return <|fim_suffix|>', scenario: { kind: 'replay', recording: ollamaGenerateRecording(['a + ', 'b;']) } })
        .when({ bodyIncludes: 'sub(a: number, b: number) {\\n    <|fim_suffix|>', scenario: { kind: 'replay', recording: ollamaGenerateRecording(['const d = a - b;\n', '    return d;']) } })
        .when({ bodyIncludes: 'const x = <|fim_suffix|>', scenario: { kind: 'replay', recording: ollamaGenerateRecording(['compute(1, 2);']) } })
        .when({ bodyIncludes: 'boom = <|fim_suffix|>', scenario: { kind: 'status', status: 503, body: 'overloaded' } })
        .when({ bodyIncludes: '<cursor>', scenario: { kind: 'replay', recording: openAITextRecording('```python\n    return f"Hello, {name}!"\n```') } })
        // A fresh line or an `=` asks at once, before the rest is typed: those positions get nothing to show.
        .when({ bodyIncludes: '<|fim_suffix|>', scenario: { kind: 'replay', recording: ollamaGenerateRecording(['']) } }));
    const { fake, app } = session;
    let page: Page;
    before(() => { page = session.page; });


    /** Puts the cursor at the end of a line (1-based) of the active editor. */
    async function cursorAtEndOf(line: number): Promise<void> {
        await page.locator('.monaco-editor .view-lines').first().click();
        await page.keyboard.press('Control+Home');
        for (let i = 1; i < line; i++) {
            await page.keyboard.press('ArrowDown');
        }
        await page.keyboard.press('End');
    }

    const ghost = () => page.locator('.monaco-editor .ghost-text-decoration, .monaco-editor .ghost-text').first();
    const ghostText = () => page.evaluate(() => Array.from(document.querySelectorAll('.monaco-editor .ghost-text-decoration, .monaco-editor .ghost-text')).map(element => (element.textContent ?? '').replace(/\u00a0/g, ' ')).join('\n'));
    /** Saves the active editor and reads the file back from disk: what was accepted is really in the file. */
    async function saved(file: string): Promise<string[]> {
        await page.keyboard.press('Control+s');
        await page.waitForTimeout(300);
        return readFileSync(join(app.workspace, file), 'utf8').split('\n');
    }

    it('shows FIM ghost text after typing and Tab accepts all of it', async () => {
        await openFile(page, 'math.ts');
        await cursorAtEndOf(2);
        await page.keyboard.type('return ', { delay: 20 });
        await ghost().waitFor({ timeout: 10_000 });
        assert.equal(await ghostText(), 'a + b;');
        const request = fake.requests.find(entry => entry.body.includes('    return <|fim_suffix|>'))!;
        assert.equal(request.path, '/api/generate');
        await page.screenshot({ path: screenshotPath('completion-ghost-text') });
        await page.keyboard.press('Tab');
        await ghost().waitFor({ state: 'detached', timeout: 5_000 });
        assert.equal((await saved('src/math.ts'))[1], '    return a + b;');
    });

    it('accepts a multi-line suggestion a word, then a line at a time; Esc dismisses the rest', async () => {
        await page.keyboard.press('Control+End');
        await page.keyboard.type('export function sub(a: number, b: number) {', { delay: 10 });
        await page.keyboard.press('Enter');
        await ghost().waitFor({ timeout: 10_000 });
        assert.match(await ghostText(), /const d = a - b;/);
        await page.screenshot({ path: screenshotPath('completion-multiline-ghost') });
        await page.keyboard.press('Control+ArrowRight');
        await page.waitForTimeout(200);
        assert.equal((await saved('src/math.ts'))[4].trimEnd(), '    const', 'Ctrl+Right took the next word');
        await ghost().waitFor({ timeout: 5_000 });
        await page.keyboard.press('Control+Alt+ArrowRight');
        await page.waitForTimeout(200);
        assert.equal((await saved('src/math.ts'))[4].trimEnd(), '    const d = a - b;', 'Ctrl+Alt+Right took the rest of the line');
        await ghost().waitFor({ timeout: 5_000 });
        await page.keyboard.press('Escape');
        await ghost().waitFor({ state: 'detached', timeout: 5_000 });
        assert.ok(!(await saved('src/math.ts')).join('\n').includes('return d;'), 'Esc left the rest unaccepted');
    });

    it('typing through a suggestion keeps it without a new request', async () => {
        await page.keyboard.press('Control+End');
        await page.keyboard.press('Enter');
        await page.keyboard.type('const x = ', { delay: 10 });
        await ghost().waitFor({ timeout: 10_000 });
        assert.equal(await ghostText(), 'compute(1, 2);');
        const posts = () => fake.requests.filter(request => request.method === 'POST').length;
        const requests = posts();
        await page.keyboard.type('com', { delay: 60 });
        await page.waitForTimeout(400);
        assert.equal(await ghostText(), 'pute(1, 2);');
        assert.equal(posts(), requests, 'typed-ahead text is served without asking the model again');
        await page.keyboard.press('Escape');
    });

    it('an instruct agent completes Python: the fenced, indented answer becomes clean ghost text', async () => {
        await openFile(page, 'tool.py');
        await cursorAtEndOf(2);
        await page.keyboard.press('Alt+\\');
        await ghost().waitFor({ timeout: 10_000 });
        assert.equal(await ghostText(), 'return f"Hello, {name}!"');
        const request = fake.lastModelRequest()!;
        assert.equal(request.path, '/v1/chat/completions');
        assert.match(JSON.parse(request.body).messages.at(-1).content, /Active file: src\/tool\.py \(python\)/);
        await page.keyboard.press('Tab');
        await ghost().waitFor({ state: 'detached', timeout: 5_000 });
        assert.equal((await saved('src/tool.py'))[1], '    return f"Hello, {name}!"');
        await page.screenshot({ path: screenshotPath('completion-instruct-accepted') });
    });

    it('a failing provider shows its category in the status bar, never silently', async () => {
        await openFile(page, 'math.ts');
        await page.keyboard.press('Control+End');
        await page.keyboard.type('const boom = ', { delay: 10 });
        const status = page.locator('#theia-statusBar .element', { hasText: 'QodeAssist: Provider' });
        await status.waitFor({ timeout: 20_000 });
        await status.click();
        const log = page.locator('.theia-output', { hasText: 'Provider:' });
        await log.waitFor({ timeout: 10_000 });
        assert.match((await log.textContent() ?? '').replace(/\u00a0/g, ' '), /Provider: .*\(HTTP 503\)/);
        await page.screenshot({ path: screenshotPath('completion-status-error') });
    });
});
