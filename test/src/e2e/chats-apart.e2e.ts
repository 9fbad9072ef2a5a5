import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { openAITextRecording } from '../fake-provider/recordings';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { chatViewIds, openFromHistory, openNewChat, savedChats, SavedChatFile, shownChatView, tabLabel, userTexts } from './chat-views';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { runCommand, waitForTheiaShell } from './theia-page';

/** Three chats, each on its own topic; the fake provider answers each topic in its own words. */
const TOPICS = [
    { name: 'alpha', question: 'alpha: what is a monad', answer: 'Alpha answer: a monoid in the category of endofunctors.' },
    { name: 'beta', question: 'beta: how do I rebase', answer: 'Beta answer: git rebase --interactive.' },
    { name: 'gamma', question: 'gamma: why does the build fail on the second run', answer: 'Gamma answer: a stale cache.' }
] as const;
type Topic = typeof TOPICS[number];

describe('chats kept apart across a reload: New chat is empty, History opens each chat in its own view', function () {
    this.timeout(420_000);

    const session = useBrowserApp(fake => ({ files: workspaceConfiguration(fake.url), env: { E2E_API_KEY: 'sk-e2e-apart-0123456789' } }), fake => {
        for (const topic of TOPICS) {
            fake.when({ promptIncludes: topic.name, scenario: { kind: 'replay', recording: openAITextRecording(topic.answer) } });
        }
    });
    const { app } = session;
    let page: Page;
    const chatsFolder = () => join(app.workspace, '.qodeassist', 'chats');
    const fileOf = (topic: Topic): SavedChatFile | undefined => savedChats(chatsFolder()).find(chat => userTexts(chat)[0] === topic.question);
    /** Waits until the files say what `test` wants (a save follows the answer shortly). */
    async function until(what: string, test: () => boolean): Promise<void> {
        for (let i = 0; i < 200 && !test(); i++) {
            await page.waitForTimeout(50);
        }
        assert.ok(test(), what);
    }
    /** Which topics' questions a view shows. */
    const topicsIn = (chat: ChatPage) => chat.page.evaluate(([scope, questions]) => {
        const users = Array.from(document.querySelectorAll(`${scope} .qa-message[data-role=user]`), node => node.textContent ?? '');
        return questions.filter(question => users.some(text => text.includes(question)));
    }, [chat.scope, TOPICS.map(topic => topic.question)] as const);
    const idOf = (chat: ChatPage) => /^\[id="(.*)"\]$/.exec(chat.scope)![1];

    before(async () => {
        page = session.page;
        // In the editor area, where every chat has a tab with its title.
        await runCommand(page, 'QodeAssist: Open Chat in Editor Area');
        await page.locator('#theia-main-content-panel .qa-chat .qa-input').waitFor({ state: 'visible', timeout: 20_000 });
    });

    it('three chats, each answered; each tab shows its chat\'s title, cut short for a tab', async () => {
        for (const [index, topic] of TOPICS.entries()) {
            const chat = index === 0 ? await shownChatView(page) : await openNewChat(page);
            assert.equal(await page.locator(`#theia-main-content-panel ${chat.scope}`).count(), 1, 'New chat opens beside the chat used last, in the editor area');
            assert.equal(await tabLabel(page, idOf(chat)).textContent(), 'New chat', 'an empty chat is a "New chat"');
            await chat.send(topic.question);
            await chat.waitForLastAnswer('done');
            await chat.lastAnswer().getByText(topic.answer).waitFor({ timeout: 10_000 });
        }
        await until('three chat files, each with its question and answer', () => TOPICS.every(topic => fileOf(topic)?.history.length === 2));
        assert.equal(savedChats(chatsFolder()).length, 3);

        const ids = await chatViewIds(page);
        assert.equal(ids.length, 3);
        assert.equal(new Set(ids).size, 3);
        const labels = await page.locator('#theia-main-content-panel .lm-TabBar-tab .lm-TabBar-tabLabel').allTextContents();
        assert.deepEqual(labels.filter(label => label.startsWith('alpha') || label.startsWith('beta') || label.startsWith('gamma')),
            ['alpha: what is a monad', 'beta: how do I rebase', 'gamma: why does the build fail…']);
        await page.locator('#theia-main-content-panel .lm-TabBar').first().screenshot({ path: screenshotPath('chats-apart-titled-tabs') });
    });

    it('after a reload: each restored view shows its own chat, New chat is empty, and History focuses a chat\'s view or opens a new one; a message typed in each lands in that chat\'s file', async () => {
        await page.reload();
        await waitForTheiaShell(page);
        // Every chat comes back in a view of its own.
        const restored = new Map<string, string>();
        await page.waitForFunction(questions => questions.every(question => Array.from(document.querySelectorAll('.qa-chat'))
            .filter(view => view.querySelector('.qa-message[data-role=user]')?.textContent?.includes(question)).length === 1),
        TOPICS.map(topic => topic.question), { timeout: 30_000 });
        for (const id of await chatViewIds(page)) {
            const shown = await topicsIn(new ChatPage(page, `[id="${id}"]`));
            assert.equal(shown.length, 1, `view ${id} shows one chat, not ${shown.join(' + ')}`);
            restored.set(shown[0], id);
        }
        assert.equal(restored.size, 3);
        for (const topic of TOPICS) {
            assert.match(await tabLabel(page, restored.get(topic.question)!).textContent() ?? '', new RegExp(`^${topic.name}`), 'the restored tab keeps its chat\'s title');
        }

        const fresh = await openNewChat(page);
        assert.ok(![...restored.values()].includes(idOf(fresh)), 'New chat is a view of its own, not a restored one');
        await page.locator(`${fresh.scope} .qa-empty`).waitFor({ timeout: 10_000 });
        assert.equal(await page.locator(`${fresh.scope} .qa-message`).count(), 0, 'New chat is empty');
        assert.equal(await tabLabel(page, idOf(fresh)).textContent(), 'New chat');
        assert.equal((await shownChatView(page)).scope, fresh.scope, 'New chat is the view shown');
        for (const [question, id] of restored) {
            assert.deepEqual(await topicsIn(new ChatPage(page, `[id="${id}"]`)), [question], 'New chat moved no chat');
        }
        await page.screenshot({ path: screenshotPath('chats-apart-new-chat-after-reload') });

        // Close beta's view: History opens beta in a new view, and focuses the views alpha and gamma still have.
        const beta = TOPICS[1];
        await page.locator(`#theia-main-content-panel .lm-TabBar-tab[id="shell-tab-${restored.get(beta.question)}"] .lm-TabBar-tabCloseIcon`).click();
        await page.locator(`[id="${restored.get(beta.question)}"]`).waitFor({ state: 'detached', timeout: 10_000 });

        for (const topic of TOPICS) {
            await openFromHistory(page, topic.question);
            await page.waitForFunction(question => Array.from(document.querySelectorAll<HTMLElement>('#theia-main-content-panel .qa-chat'))
                .find(view => view.checkVisibility())?.querySelector('.qa-message[data-role=user]')?.textContent?.includes(question),
            topic.question, { timeout: 20_000 });
            const shown = await shownChatView(page);
            assert.deepEqual(await topicsIn(shown), [topic.question], `History shows ${topic.name} alone`);
            assert.equal(await shown.lastAnswer().locator('.qa-markdown').textContent(), topic.answer);
            if (topic === beta) {
                assert.ok(![...restored.values(), idOf(fresh)].includes(idOf(shown)), 'a chat without a view opens in a new view');
            } else {
                assert.equal(idOf(shown), restored.get(topic.question), 'a chat with a view is focused there, not opened twice');
            }
            assert.equal(await page.locator('.qa-chat').filter({ hasText: topic.question }).count(), 1, `${topic.name} is in one view`);

            const followUp = `${topic.name} follow-up from its view`;
            await shown.send(followUp);
            await shown.waitForLastAnswer('done');
            await until(`the follow-up lands in ${topic.name}'s file`, () => fileOf(topic)?.history.length === 4);
            assert.deepEqual(userTexts(fileOf(topic)!), [topic.question, followUp]);
        }
        for (const chat of savedChats(chatsFolder())) {
            const [question, followUp] = userTexts(chat);
            assert.ok(followUp.startsWith(question.split(':')[0]), `${chat.id}: its follow-up (${followUp}) belongs to its question (${question})`);
        }
        assert.equal(savedChats(chatsFolder()).length, 3, 'no chat file more: the empty New chat saved nothing, no chat was copied');
        assert.equal(await page.locator(`${fresh.scope} .qa-message`).count(), 0, 'New chat stayed empty');
        await page.screenshot({ path: screenshotPath('chats-apart-after-follow-ups') });
    });

    it('a rename from History retitles the open view\'s tab', async () => {
        const gamma = TOPICS[2];
        await runCommand(page, 'QodeAssist: Chat History…');
        const row = page.locator(`.quick-input-list .monaco-list-row[aria-label^="${gamma.question},"]`);
        await row.waitFor({ timeout: 10_000 });
        await row.hover();
        await row.getByRole('button', { name: 'Rename' }).click();
        const input = page.locator('.quick-input-widget input.input');
        await input.waitFor({ timeout: 10_000 });
        await input.fill('Flaky second build');
        await input.press('Enter');
        const view = page.locator('.qa-chat').filter({ hasText: gamma.question });
        const id = await view.getAttribute('id');
        await tabLabel(page, id!).filter({ hasText: /^Flaky second build$/ }).waitFor({ timeout: 10_000 });
        await until('the file has the new title', () => fileOf(gamma)?.title === 'Flaky second build');
        await page.locator('#theia-main-content-panel .lm-TabBar').first().screenshot({ path: screenshotPath('chats-apart-renamed-tab') });
    });

    it('in a sidebar the panel\'s title is the chat\'s title, and a new chat takes its first message\'s', async () => {
        const sidebarTitle = page.locator('.theia-right-side-panel .theia-sidepanel-title');
        await runCommand(page, 'QodeAssist: Open Chat in Right Sidebar');
        await page.locator('#theia-right-content-panel .qa-chat').filter({ hasText: TOPICS[2].question }).waitFor({ timeout: 10_000 });
        await sidebarTitle.filter({ hasText: /^Flaky second build$/ }).waitFor({ timeout: 10_000 });

        const delta = await openNewChat(page);
        assert.equal(await page.locator(`#theia-right-content-panel ${delta.scope}`).count(), 1, 'New chat opens beside the chat used last, in the sidebar');
        await sidebarTitle.filter({ hasText: /^New chat$/ }).waitFor({ timeout: 10_000 });
        await delta.send('delta: asked in the sidebar');
        await sidebarTitle.filter({ hasText: /^delta: asked in the sidebar$/ }).waitFor({ timeout: 10_000 });
        await delta.waitForLastAnswer('done');
        await page.locator('#theia-right-content-panel').screenshot({ path: screenshotPath('chats-apart-sidebar-title') });
    });
});
