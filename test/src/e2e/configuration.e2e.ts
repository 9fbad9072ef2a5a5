import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Page } from 'playwright-core';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { runCommand } from './theia-page';

describe('configuration view in Chromium', function () {
    this.timeout(180_000);

    const session = useBrowserApp(fake => ({
        files: {
            ...workspaceConfiguration(fake.url),
            '.qodeassist/agents/second.toml': 'schema_version = 1\nname = "second-chat"\nextends = "openai-base"\nprovider_instance = "fake"\nmodel = "other-model"\n'
        }
    }));
    const { fake, app } = session;
    let page: Page;
    const view = () => page.locator('.qa-config-root');

    before(async () => {
        page = session.page;
        // A saved instruction the view lists.
        const instructions = join(app.root, 'home', '.qodeassist', 'instructions');
        mkdirSync(instructions, { recursive: true });
        writeFileSync(join(instructions, 'tidy.json'), JSON.stringify({ id: 'tidy', name: 'Tidy', body: 'Tidy this up.', version: 1 }));
        await runCommand(page, 'QodeAssist: Open Configuration');
        await view().waitFor({ timeout: 20_000 });
    });

    it('adds a provider, stores its key, and lists its models live from the fake server', async () => {
        const form = view().locator('[data-form=provider]');
        await form.locator('[data-field=name]').fill('added');
        await form.locator('[data-field=client-api]').selectOption('openai_compatible');
        await form.locator('[data-field=url]').fill(`${fake.url}/v1`);
        await form.locator('[data-field=key-ref]').fill('added_key');
        await form.locator('[data-action=add-provider]').click();
        const row = view().locator('tr[data-provider=added]');
        await row.waitFor({ timeout: 20_000 });
        assert.match(readFileSync(join(app.workspace, '.qodeassist', 'providers', 'added.toml'), 'utf8'), /client_api = "openai_compatible"\napi_key_ref = "added_key"|api_key_ref = "added_key"/);
        assert.equal(await row.locator('[data-key-state]').getAttribute('data-key-state'), 'missing');

        await row.locator('[data-action=set-key]').click();
        const input = page.locator('.quick-input-widget input');
        await input.waitFor({ timeout: 10_000 });
        assert.equal(await input.getAttribute('type'), 'password');
        await input.fill('sk-added-0123456789');
        await input.press('Enter');
        await row.locator('[data-key-state=set]').waitFor({ timeout: 10_000 });
        const secrets = join(app.root, 'home', '.qodeassist', 'secrets.json');
        assert.equal(JSON.parse(readFileSync(secrets, 'utf8')).added_key, 'sk-added-0123456789');

        await row.locator('[data-action=test]').click();
        await row.locator('.qa-config-status[data-status=reachable]').waitFor({ timeout: 20_000 });
        const models = await row.locator('.qa-config-models option').allTextContents();
        assert.ok(models.length > 0, 'the fake server\'s model list is shown');
        const listing = fake.requests.filter(request => request.method === 'GET' && /\/models$/.test(request.path)).at(-1);
        assert.equal(listing?.headers.authorization, 'Bearer sk-added-0123456789');
        await page.screenshot({ path: screenshotPath('config-providers') });
    });

    it('shows a broken agent file with its line, and clears it once fixed', async () => {
        const file = join(app.workspace, '.qodeassist', 'agents', 'second.toml');
        writeFileSync(file, 'schema_version = 1\nname = "second-chat"\nextends = "openai-base"\nprovider_instance = "fake"\nmodel = \n');
        const issue = view().locator('.qa-config-issue[data-severity=error]', { hasText: 'second.toml' });
        await issue.waitFor({ timeout: 20_000 });
        assert.match(await issue.locator('.qa-config-where').textContent() ?? '', /second\.toml:5/);
        await page.screenshot({ path: screenshotPath('config-broken-agent') });
        writeFileSync(file, 'schema_version = 1\nname = "second-chat"\nextends = "openai-base"\nprovider_instance = "fake"\nmodel = "fixed-model"\n');
        await issue.waitFor({ state: 'detached', timeout: 20_000 });
        await page.waitForFunction(() => (document.querySelector('.qa-config-root tr[data-agent=second-chat] input[data-field=model]') as HTMLInputElement | null)?.value === 'fixed-model', undefined, { timeout: 10_000 });
    });

    it('reorders a roster into the rosters file and previews an agent\'s request body', async () => {
        writeFileSync(join(app.workspace, '.qodeassist', 'agents', 'rosters.toml'), 'schema_version = 1\n# mine\n[chat]\nagents = ["fake-chat", "second-chat"]\n');
        const roster = view().locator('[data-roster=chat]');
        await roster.locator('li[data-agent=second-chat]').waitFor({ timeout: 20_000 });
        await roster.locator('li[data-agent=second-chat] [data-action=up]').click();
        await roster.locator('[data-action=save-roster]').click();
        await roster.locator('[data-action=save-roster]').waitFor({ state: 'detached', timeout: 20_000 });
        const text = readFileSync(join(app.workspace, '.qodeassist', 'agents', 'rosters.toml'), 'utf8');
        assert.match(text, /agents = \["second-chat", "fake-chat"\]/);
        assert.match(text, /# mine/);
        await view().locator('tr[data-agent=fake-chat] [data-action=preview]').click();
        assert.match(await view().locator('.qa-config-preview[data-agent=fake-chat]').textContent() ?? '', /"model": "fake-model"/);
        await view().locator('tr[data-agent=fake-chat] [data-action=profile]').click();
        const profile = await view().locator('.qa-config-preview[data-agent=fake-chat][data-kind=profile]').textContent() ?? '';
        assert.match(profile, /^# "fake-chat" after extends: bundled:agents\/openai-base\.toml → agents\/fake-chat\.toml/);
        assert.match(profile, /endpoint = "\/chat\/completions" {2}# bundled:agents\/openai-base\.toml/, 'each field names the file it came from');
        assert.match(profile, /model = "fake-model" {2}# agents\/fake-chat\.toml/);
        await view().locator('.qa-config-preview[data-kind=profile]').scrollIntoViewIfNeeded();
        await page.screenshot({ path: screenshotPath('config-effective-profile') });
    });

    it('duplicates and deletes refactor instructions', async () => {
        const folder = join(app.root, 'home', '.qodeassist', 'instructions');
        const item = view().locator('li[data-instruction=Tidy]');
        await item.waitFor({ timeout: 20_000 });
        await item.locator('[data-action=duplicate]').click();
        await view().locator('li[data-instruction="Tidy (copy)"]').waitFor({ timeout: 10_000 });
        assert.deepEqual(readdirSync(folder).sort(), ['tidy-copy.json', 'tidy.json']);
        await page.screenshot({ path: screenshotPath('config-instructions') });
        await view().locator('li[data-instruction="Tidy (copy)"] [data-action=delete]').click();
        await view().locator('li[data-instruction="Tidy (copy)"]').waitFor({ state: 'detached', timeout: 10_000 });
        assert.equal(existsSync(join(folder, 'tidy-copy.json')), false);
    });

    it('copies a bundled role into the project and deletes it again; turns a tool off for this workspace', async () => {
        const role = view().locator('li[data-role=reviewer]');
        await role.locator('[data-action=copy-role]').click();
        const file = join(app.workspace, '.qodeassist', 'roles', 'reviewer.json');
        // The copy opens in an editor to be changed; the view is one tab away.
        await page.locator('#theia-main-content-panel .lm-TabBar-tab.lm-mod-current', { hasText: 'reviewer.json' }).waitFor({ timeout: 20_000 });
        assert.equal(JSON.parse(readFileSync(file, 'utf8')).id, 'reviewer');
        await page.locator('#theia-main-content-panel .lm-TabBar-tab', { hasText: 'QodeAssist Configuration' }).click();
        await view().locator('li[data-role=reviewer] [data-action=delete]').waitFor({ timeout: 20_000 });
        await view().locator('li[data-role=reviewer] [data-action=delete]').click();
        await view().locator('li[data-role=reviewer] [data-action=copy-role]').waitFor({ timeout: 20_000 });
        assert.equal(existsSync(file), false, 'the project copy is gone; the bundled role shows again');

        const toggle = view().locator('tr[data-tool=execute_terminal_command] [data-action=toggle-tool]');
        await toggle.uncheck();
        const settings = join(app.workspace, '.theia', 'settings.json');
        for (let waited = 0; !(existsSync(settings) && /execute_terminal_command/.test(readFileSync(settings, 'utf8'))) && waited < 10_000; waited += 100) {
            await page.waitForTimeout(100);
        }
        assert.deepEqual(JSON.parse(readFileSync(settings, 'utf8'))['qodeassist.tools.disabled'], ['execute_terminal_command']);
        assert.equal(await toggle.isChecked(), false);
        assert.equal(await view().locator('tr[data-tool=edit_file] td').nth(2).textContent(), 'write');
        await page.screenshot({ path: screenshotPath('config-roles-tools') });
    });

    it('overrides an agent\'s model, and lists skills with the ones it cannot use', async () => {
        const model = view().locator('tr[data-agent=second-chat] input[data-field=model]');
        await model.fill('override-model');
        await model.press('Enter');
        await view().locator('tr[data-agent=second-chat] [data-override]').waitFor({ timeout: 20_000 });
        assert.deepEqual(JSON.parse(readFileSync(join(app.root, 'home', '.qodeassist', 'agent_models.json'), 'utf8')), { 'second-chat': 'override-model' });
        assert.equal(await view().locator('tr[data-agent=second-chat] input[data-field=model]').inputValue(), 'override-model');

        mkdirSync(join(app.workspace, '.qodeassist', 'skills', 'tone'), { recursive: true });
        writeFileSync(join(app.workspace, '.qodeassist', 'skills', 'tone', 'SKILL.md'), '---\nname: tone\ndescription: Write kindly\n---\nBe kind.\n');
        mkdirSync(join(app.workspace, '.qodeassist', 'skills', 'Bad'), { recursive: true });
        writeFileSync(join(app.workspace, '.qodeassist', 'skills', 'Bad', 'SKILL.md'), '---\nname: Bad\n---\n');
        await view().locator('[data-action=refresh]').click();
        const skill = view().locator('li[data-skill=tone]');
        await skill.waitFor({ timeout: 20_000 });
        assert.match(await skill.textContent() ?? '', /\/tone\s*project/);
        assert.match(await view().locator('[data-section=skills] .qa-config-issue').textContent() ?? '', /Bad\/SKILL\.md/);
        await view().locator('[data-section=skills]').scrollIntoViewIfNeeded();
        await page.screenshot({ path: screenshotPath('config-agents-skills') });

        // The list follows the skills preferences, as the chat does: an extra folder, then skills turned off.
        // Extra folders are the user's setting: the same setting in the repository's settings is ignored.
        const extra = join(app.root, 'team-skills');
        const sneaky = join(app.root, 'repository-named-skills');
        mkdirSync(join(extra, 'review'), { recursive: true });
        writeFileSync(join(extra, 'review', 'SKILL.md'), '---\nname: review\ndescription: Review the change\n---\nLook closely.\n');
        mkdirSync(join(sneaky, 'sneaky'), { recursive: true });
        writeFileSync(join(sneaky, 'sneaky', 'SKILL.md'), '---\nname: sneaky\ndescription: Named by the repository\n---\nExfiltrate.\n');
        const workspaceSettings = join(app.workspace, '.theia', 'settings.json');
        const current = JSON.parse(readFileSync(workspaceSettings, 'utf8'));
        writeFileSync(workspaceSettings, JSON.stringify({ ...current, 'qodeassist.skills.folders': [sneaky] }, undefined, 2));
        // The user's settings hold Theia's trusted folders too (answering the trust dialog wrote them): keep them.
        const settings = join(app.root, 'home', '.theia', 'settings.json');
        mkdirSync(dirname(settings), { recursive: true });
        const user = existsSync(settings) ? JSON.parse(readFileSync(settings, 'utf8')) : {};
        writeFileSync(settings, JSON.stringify({ ...user, 'qodeassist.skills.folders': [extra] }, undefined, 2));
        const review = view().locator('li[data-skill=review]');
        await review.waitFor({ timeout: 20_000 });
        assert.match(await review.textContent() ?? '', /\/review\s*user/);
        assert.equal(await view().locator('li[data-skill=sneaky]').count(), 0, 'a repository cannot name skill folders');
        writeFileSync(settings, JSON.stringify({ ...user, 'qodeassist.skills.folders': [extra], 'qodeassist.skills.enabled': false }, undefined, 2));
        await view().locator('[data-section=skills] [data-skills-off]').waitFor({ timeout: 20_000 });
        assert.equal(await view().locator('[data-section=skills] li[data-skill]').count(), 0);
        writeFileSync(settings, JSON.stringify(user, undefined, 2));
        writeFileSync(workspaceSettings, JSON.stringify(current, undefined, 2));
        await view().locator('li[data-skill=tone]').waitFor({ timeout: 20_000 });
    });

    it('a model override reaches the chat already open: its next send goes to the new model, the conversation continued', async () => {
        await runCommand(page, 'QodeAssist: Open Chat');
        const chat = new ChatPage(page);
        await chat.input.waitFor({ state: 'visible', timeout: 20_000 });
        await chat.send('first question');
        await chat.waitForLastAnswer('done');
        // Whichever agent the roster (reordered above) put first answers; its model is what gets overridden.
        const agent = (await chat.lastAnswer().locator('.qa-message-agent').textContent())!;
        const before = JSON.parse(fake.lastModelRequest()!.body).model;
        assert.notEqual(before, 'edited-model');

        await runCommand(page, 'QodeAssist: Open Configuration');
        const model = view().locator(`tr[data-agent=${agent}] input[data-field=model]`);
        await model.fill('edited-model');
        await model.press('Enter');
        const overrides = join(app.root, 'home', '.qodeassist', 'agent_models.json');
        for (let tries = 0; !(existsSync(overrides) && JSON.parse(readFileSync(overrides, 'utf8'))[agent] === 'edited-model'); tries++) {
            assert.ok(tries < 200, 'the override was written');
            await page.waitForTimeout(100);
        }

        await runCommand(page, 'QodeAssist: Open Chat');
        await chat.send('second question');
        await chat.waitForLastAnswer('done');
        const body = JSON.parse(fake.lastModelRequest()!.body);
        assert.equal(body.model, 'edited-model', 'the open chat uses the model set since');
        const said = JSON.stringify(body.messages);
        assert.ok(said.includes('first question') && said.includes('second question'), 'the same conversation went on');
        await page.screenshot({ path: screenshotPath('config-override-reaches-chat') });

        await runCommand(page, 'QodeAssist: Open Configuration');
        await model.fill(before);
        await model.press('Enter');
        await view().locator(`tr[data-agent=${agent}] input[data-field=model]`).waitFor({ timeout: 20_000 });
    });
});
