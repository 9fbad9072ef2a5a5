import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Page } from 'playwright-core';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { controlsWithoutNameOrTooltip, describeViolations, seriousViolations } from './axe-check';
import { ChatPage } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserChat } from './e2e-session';
import { openFile, runCommand } from './theia-page';

const TOTAL = 'export function total(items: number[]): number {\n    let sum = 0;\n    for (const item of items) {\n        sum += item;\n    }\n    return sum;\n}\n';

function configuration(serverUrl: string): Record<string, string> {
    return {
        '.qodeassist/providers/fake.toml': `schema_version = 1\nname = "fake"\nclient_api = "openai_compatible"\nurl = "${serverUrl}/v1"\napi_key_ref = "e2e"\n`,
        '.qodeassist/agents/fake-chat.toml': 'schema_version = 1\nname = "fake-chat"\nextends = "openai-base"\nprovider_instance = "fake"\nmodel = "fake-model"\n',
        '.qodeassist/agents/fake-refactor.toml': 'schema_version = 1\nname = "fake-refactor"\nextends = "openai-refactor"\nprovider_instance = "fake"\nmodel = "fake-model"\n',
        '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[chat]\nagents = ["fake-chat"]\n\n[compression]\nagents = ["fake-chat"]\n\n[refactor]\nagents = ["fake-refactor"]\n',
        // A problem in the workspace's files, for the paths the problems list shows.
        '.qodeassist/agents/broken.toml': 'schema_version = 1\nname = "broken"\nextends = "openai-base"\nmodel = \n',
        'src/total.ts': TOTAL
    };
}

/** What a focused element is, in words a test can list: its action, or the control it is. */
async function focusedControl(page: Page): Promise<string | undefined> {
    return page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null;
        if (!element?.closest('.qa-chat-root')) {
            return undefined;
        }
        const kinds: Array<[string, string]> = [['qa-agent-picker', 'agent-picker'], ['qa-role-picker', 'role-picker'], ['qa-token-counter', 'token-counter'],
            ['qa-send', 'send'], ['qa-input', 'input'], ['qa-file-link', 'file-link'], ['qa-copy', 'copy-code']];
        return element.dataset.action ?? element.dataset.answer ?? kinds.find(([cls]) => element.classList.contains(cls))?.[1] ?? element.tagName.toLowerCase();
    });
}

/** Drags the split handle at the right sidebar's left edge until its content is `width` px wide. */
async function setRightSidebarWidth(page: Page, width: number): Promise<number> {
    for (let attempt = 0; attempt < 3; attempt++) {
        const geometry = await page.evaluate(() => {
            const panel = document.querySelector('#theia-right-content-panel')!.getBoundingClientRect();
            // Theia's side areas are split with no spacing: the handle is 0 px wide, its grip a pseudo-element over the edge.
            const handle = Array.from(document.querySelectorAll('#theia-left-right-split-panel > .lm-SplitPanel-handle')).map(element => element.getBoundingClientRect())
                .find(rect => rect.height > 100 && Math.abs(rect.left - panel.left) < 8);
            return { panel: panel.width, handle: handle && { x: handle.left + handle.width / 2, y: handle.top + handle.height / 2 } };
        });
        assert.ok(geometry.handle, 'the right sidebar has a split handle');
        if (Math.abs(geometry.panel - width) <= 2) {
            return geometry.panel;
        }
        await page.mouse.move(geometry.handle.x, geometry.handle.y);
        await page.mouse.down();
        await page.mouse.move(geometry.handle.x + (geometry.panel - width), geometry.handle.y, { steps: 8 });
        await page.mouse.up();
    }
    return page.evaluate(() => document.querySelector('#theia-right-content-panel')!.getBoundingClientRect().width);
}

describe('accessibility in Chromium: axe-core over the chat, configuration and refactor views; keyboard; narrow sidebar', function () {
    this.timeout(240_000);

    const session = useBrowserChat(fake => ({
        files: configuration(fake.url),
        userFiles: { '.qodeassist/agents/broken-user.toml': 'schema_version = 1\nname = "broken-user"\nmodel = \n' },
        env: { E2E_API_KEY: 'sk-e2e-a11y-0123456789' }
    }), fake => fake
        .when({ promptIncludes: 'bad key', scenario: { kind: 'status', status: 401, body: '{"error":{"message":"Incorrect API key provided"}}' } })
        .when({ bodyIncludes: 'fail please', scenario: { kind: 'status', status: 401, body: 'invalid key' } }));
    const { fake, app } = session;
    let page: Page;
    let chat: ChatPage;
    const config = () => page.locator('.qa-config-root');

    before(() => ({ page, chat } = session));

    it('the chat with text, code, a permission prompt, a file edit and an Auth error has no serious axe violations; every control is named and has a tooltip', async () => {
        fake.enqueue({ kind: 'replay', recording: openAITextRecording('Here is a **sketch**:\n\n```ts\nexport const x = 1;\n```\n') });
        await chat.send('show me some code');
        await chat.waitForLastAnswer('done');

        const file = join(app.workspace, 'src', 'greeting.ts');
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, 'export const greeting = "hi";\n');
        fake.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'r1', name: 'read_file', arguments: { path: 'src/greeting.ts' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'e1', name: 'edit_file', arguments: { path: 'src/greeting.ts', old_text: '"hi"', new_text: '"hello"' } }]) },
            { kind: 'replay', recording: openAITextRecording('Changed the greeting.') }
        );
        await chat.send('make the greeting friendlier');
        const prompt = page.locator('.qa-chat .qa-permission[data-tool=edit_file]');
        await prompt.waitFor({ timeout: 20_000 });
        const whilePrompting = await seriousViolations(page, '.qa-chat-root');
        assert.deepEqual(await controlsWithoutNameOrTooltip(page, '.qa-chat-root'), [], 'with the permission prompt');
        await prompt.locator('button[data-answer=allow-once]').click();
        await chat.waitForLastAnswer('done');
        await chat.lastAnswer().locator('.qa-tool[data-tool=edit_file] summary').click();

        await chat.send('bad key test');
        await chat.lastAnswer().locator('.qa-error[data-category=Auth]').waitFor({ timeout: 20_000 });
        await page.locator('.qa-chat .qa-token-counter').click();
        await page.locator('.qa-chat .qa-manifest').waitFor();

        const violations = [...whilePrompting, ...await seriousViolations(page, '.qa-chat-root')];
        await page.screenshot({ path: screenshotPath('a11y-chat') });
        await page.locator('.qa-chat .qa-token-counter').click();
        assert.equal(violations.length, 0, `axe found serious or critical violations in the chat:\n${describeViolations(violations)}`);
        assert.deepEqual(await controlsWithoutNameOrTooltip(page, '.qa-chat-root'), []);
        assert.equal(await page.locator('.qa-chat [data-action=history]').getAttribute('aria-label'), 'Chat history');
        assert.equal(await page.locator('.qa-chat [data-action=new-chat]').getAttribute('aria-label'), 'New chat');
        assert.equal(await page.locator('.qa-chat [data-action=summarize]').getAttribute('aria-label'), 'Summarize chat');
    });

    it('reaches every control of the chat with Tab, and operates them with the keyboard', async () => {
        await page.locator('.qa-chat [data-action=history]').focus();
        const reached = new Set<string>();
        for (let presses = 0; presses < 150; presses++) {
            const control = await focusedControl(page);
            if (control === undefined) {
                break;
            }
            reached.add(control);
            await page.keyboard.press('Tab');
        }
        for (const control of ['history', 'summarize', 'new-chat', 'copy-code', 'file-link', 'undo', 'open-settings', 'retry', 'input', 'attach', 'link-file',
            'sync-editors', 'agent-picker', 'role-picker', 'token-counter', 'send']) {
            assert.ok(reached.has(control), `Tab reaches ${control}; it reached ${[...reached].join(', ')}`);
        }

        const undo = page.locator('.qa-chat .qa-file-edit [data-action=undo]');
        await undo.focus();
        await page.keyboard.press('Enter');
        await page.locator('.qa-chat .qa-file-edit[data-state=undone]').waitFor({ timeout: 10_000 });
        assert.equal(readFileSync(join(app.workspace, 'src', 'greeting.ts'), 'utf8'), 'export const greeting = "hi";\n', 'Enter on Undo undoes the edit');
        await page.locator('.qa-chat .qa-file-edit [data-action=apply]').focus();
        await page.keyboard.press('Space');
        await page.locator('.qa-chat .qa-file-edit[data-state=applied]').waitFor({ timeout: 10_000 });

        const counter = page.locator('.qa-chat .qa-token-counter');
        const manifest = page.locator('.qa-chat .qa-manifest');
        if (await manifest.count() > 0) {
            await counter.click();
            await manifest.waitFor({ state: 'detached' });
        }
        await counter.focus();
        await page.keyboard.press('Enter');
        await manifest.waitFor();
        assert.equal(await counter.getAttribute('aria-expanded'), 'true');
        await page.keyboard.press('Enter');
        await manifest.waitFor({ state: 'detached' });
        assert.equal(await counter.getAttribute('aria-expanded'), 'false');
    });

    it('the Auth error\'s Set API Key opens the configuration view on that provider\'s key', async () => {
        const button = chat.lastAnswer().locator('.qa-error[data-category=Auth] button[data-action=open-settings]');
        assert.equal(await button.textContent(), 'Set API Key');
        assert.match(await button.getAttribute('title') ?? '', /key of provider "fake"/);
        await button.focus();
        await page.keyboard.press('Enter');
        const row = config().locator('tr[data-provider=fake].qa-config-target');
        await row.waitFor({ timeout: 20_000 });
        await page.waitForFunction(() => document.activeElement?.matches('tr[data-provider=fake] [data-action=set-key]') ?? false, undefined, { timeout: 10_000 });
        await page.screenshot({ path: screenshotPath('a11y-auth-opens-key-field') });
        // The focused control is the key field: Enter asks for the key.
        await page.keyboard.press('Enter');
        const input = page.locator('.quick-input-widget input');
        await input.waitFor({ timeout: 10_000 });
        assert.equal(await input.getAttribute('type'), 'password');
        await input.press('Escape');
    });

    it('the configuration view has no serious axe violations, keeps its columns when a test result arrives, and shows problems with relative paths', async () => {
        const problems = config().locator('[data-section=issues] .qa-config-where');
        await problems.first().waitFor({ timeout: 20_000 });
        const where = await problems.allTextContents();
        assert.ok(where.some(text => /^\.qodeassist\/agents\/broken\.toml:\d+/.test(text)), where.join(' | '));
        assert.ok(where.some(text => /^~\/\.qodeassist\/agents\/broken-user\.toml:\d+/.test(text)), where.join(' | '));
        assert.ok(!(await config().innerText()).includes(app.root), 'the view shows no absolute path of the workspace or the home folder');

        const violations = await seriousViolations(page, '.qa-config-root');
        assert.equal(violations.length, 0, `axe found serious or critical violations in the configuration view:\n${describeViolations(violations)}`);
        assert.deepEqual(await controlsWithoutNameOrTooltip(page, '.qa-config-root'), []);

        const columns = (section: string) => config().locator(`[data-section=${section}] thead th`).evaluateAll(cells => cells.map(cell => Math.round(cell.getBoundingClientRect().width)));
        const providersBefore = await columns('providers');
        const agentsBefore = await columns('agents');
        const row = config().locator('tr[data-provider=fake]');
        await row.locator('[data-action=test]').click();
        await row.locator('.qa-config-status[data-status=reachable]').waitFor({ timeout: 20_000 });
        assert.ok(await row.locator('.qa-config-models option').count() > 0);
        await config().locator('tr[data-agent=fake-chat] [data-action=preview]').click();
        await config().locator('.qa-config-preview[data-agent=fake-chat]').waitFor();
        assert.deepEqual(await columns('providers'), providersBefore, 'a test result leaves the providers\' columns as they were');
        assert.deepEqual(await columns('agents'), agentsBefore, 'a request body shown leaves the agents\' columns as they were');
        await row.scrollIntoViewIfNeeded();
        await page.screenshot({ path: screenshotPath('a11y-config-columns-after-test') });
        const afterResults = await seriousViolations(page, '.qa-config-root');
        assert.equal(afterResults.length, 0, describeViolations(afterResults));
        await config().locator('[data-section=issues]').scrollIntoViewIfNeeded();
        await page.screenshot({ path: screenshotPath('a11y-config-problems-relative') });
    });

    it('the inline refactor has no serious axe violations, before and after an error; its Set API Key opens the key field', async () => {
        await openFile(page, 'src/total.ts');
        await page.locator('#theia-main-content-panel .monaco-editor .view-lines').first().click();
        await page.keyboard.press('Control+Home');
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('Shift+ArrowDown');
        await page.keyboard.press('Control+Alt+r');
        const panel = page.locator('.qa-refactor .qa-refactor-panel');
        await panel.locator('.qa-refactor-input').waitFor({ timeout: 10_000 });
        await page.locator('.qa-refactor .qa-refactor-agent option', { hasText: 'fake-refactor' }).waitFor({ state: 'attached', timeout: 10_000 });
        const before = await seriousViolations(page, '.qa-refactor-panel');
        assert.equal(before.length, 0, `axe found serious or critical violations in the refactor panel:\n${describeViolations(before)}`);
        assert.deepEqual(await controlsWithoutNameOrTooltip(page, '.qa-refactor-panel'), []);

        await panel.locator('.qa-refactor-input').fill('fail please');
        await page.keyboard.press('Enter');
        const error = panel.locator('.qa-error[data-category=Auth]');
        await error.waitFor({ timeout: 20_000 });
        const failed = await seriousViolations(page, '.qa-refactor-panel');
        assert.equal(failed.length, 0, `axe found serious or critical violations in the failed refactor:\n${describeViolations(failed)}`);
        assert.deepEqual(await controlsWithoutNameOrTooltip(page, '.qa-refactor-panel'), []);
        await page.screenshot({ path: screenshotPath('a11y-refactor-error') });

        await error.locator('button[data-action=open-settings]').click();
        await config().locator('tr[data-provider=fake].qa-config-target').waitFor({ timeout: 20_000 });
        await page.waitForFunction(() => document.activeElement?.matches('tr[data-provider=fake] [data-action=set-key]') ?? false, undefined, { timeout: 10_000 });
    });

    it('keeps the agent picker readable in a 280 px sidebar', async () => {
        await runCommand(page, 'QodeAssist: Open Chat in Right Sidebar');
        const sidebarChat = page.locator('#theia-right-content-panel .qa-chat');
        await sidebarChat.locator('.qa-input').waitFor({ timeout: 10_000 });
        const width = await setRightSidebarWidth(page, 280);
        assert.ok(Math.abs(width - 280) <= 4, `the sidebar is ${width} px wide`);
        await sidebarChat.locator('.qa-agent-picker').selectOption('');
        const fit = await sidebarChat.locator('.qa-agent-picker').evaluate((select: HTMLSelectElement) => {
            const style = getComputedStyle(select);
            const context = document.createElement('canvas').getContext('2d')!;
            context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
            const text = select.selectedOptions[0].text;
            // The text, the padding and the native arrow must fit inside the box.
            return { text, needed: Math.ceil(context.measureText(text).width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 20), width: select.clientWidth };
        });
        await page.locator('#theia-right-content-panel').screenshot({ path: screenshotPath('a11y-chat-sidebar-280') });
        assert.equal(fit.text, 'Auto (chat roster)');
        assert.ok(fit.needed <= fit.width, `"${fit.text}" needs ${fit.needed} px; the picker is ${fit.width} px wide`);
        const composer = await sidebarChat.locator('.qa-composer').boundingBox();
        for (const control of ['.qa-agent-picker', '.qa-role-picker', '.qa-send', '[data-action=attach]']) {
            const box = (await sidebarChat.locator(control).boundingBox())!;
            assert.ok(box.x >= composer!.x - 1 && box.x + box.width <= composer!.x + composer!.width + 1, `${control} stays inside the sidebar`);
        }
    });

    /** Theia's own themes by id, and the class its body then carries. */
    const THEMES: Array<[string, string]> = [['light', 'theia-light'], ['hc-theia', 'theia-hc'], ['dark', 'theia-dark']];
    for (const [theme, bodyClass] of THEMES) {
        it(`in the ${theme} theme the chat (sidebar and editor), configuration and refactor views have no serious axe violations`, async () => {
            mkdirSync(join(app.home, '.theia'), { recursive: true });
            writeFileSync(join(app.home, '.theia', 'settings.json'), `${JSON.stringify({ 'workbench.colorTheme': theme })}\n`);
            await page.waitForFunction(name => document.body.classList.contains(name), bodyClass, { timeout: 20_000 });
            const found: string[] = [];
            for (const [view, root] of [['sidebar chat', '#theia-right-content-panel .qa-chat-root'], ['editor chat', '#theia-main-content-panel .qa-chat-root'], ['configuration', '.qa-config-root']]) {
                if (await page.locator(root).count() > 0) {
                    found.push(...(await seriousViolations(page, root)).map(violation => `${view}: ${describeViolations([violation])}`));
                }
            }
            await page.locator('#theia-right-content-panel').screenshot({ path: screenshotPath(`a11y-sidebar-${theme}`) });
            await openFile(page, 'src/total.ts');
            await page.locator('#theia-main-content-panel .monaco-editor .view-lines').first().click();
            await page.keyboard.press('Control+Home');
            await page.keyboard.press('Shift+ArrowDown');
            await page.keyboard.press('Control+Alt+r');
            const panel = page.locator('.qa-refactor .qa-refactor-panel');
            await panel.locator('.qa-refactor-input').waitFor({ timeout: 10_000 });
            found.push(...(await seriousViolations(page, '.qa-refactor-panel')).map(violation => `refactor: ${describeViolations([violation])}`));
            await page.keyboard.press('Escape');
            assert.equal(found.length, 0, `axe found serious or critical violations in the ${theme} theme:\n${found.join('\n')}`);
        });
    }
});
