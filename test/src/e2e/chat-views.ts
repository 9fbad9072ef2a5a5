import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { ChatPage } from './chat-page';
import { runCommand } from './theia-page';

/** The ids of the chat views in the page now, in document order. */
export function chatViewIds(page: Page): Promise<string[]> {
    return page.evaluate(() => Array.from(document.querySelectorAll('.qa-chat'), node => node.id));
}

/** The chat view shown in the editor area now (its tab is the current one there). */
export async function shownChatView(page: Page): Promise<ChatPage> {
    const id = await page.waitForFunction(() => Array.from(document.querySelectorAll<HTMLElement>('#theia-main-content-panel .qa-chat'))
        .find(node => node.checkVisibility())?.id, undefined, { timeout: 10_000 });
    return new ChatPage(page, `[id="${await id.jsonValue()}"]`);
}

/** Runs New Chat and returns the view it opened: the one whose id no view had before. */
export async function openNewChat(page: Page): Promise<ChatPage> {
    const before = await chatViewIds(page);
    await runCommand(page, 'QodeAssist: New Chat');
    const id = await page.waitForFunction(known => Array.from(document.querySelectorAll('.qa-chat'), node => node.id).find(candidate => !known.includes(candidate)),
        before, { timeout: 10_000 });
    const chat = new ChatPage(page, `[id="${await id.jsonValue()}"]`);
    await chat.input.waitFor({ state: 'visible', timeout: 10_000 });
    return chat;
}

/** Opens a saved chat from Chat History by its title, as a user would: the row whose title it is. */
export async function openFromHistory(page: Page, title: string): Promise<void> {
    await runCommand(page, 'QodeAssist: Chat History…');
    const row = page.locator(`.quick-input-list .monaco-list-row[aria-label^="${title},"]`);
    await row.waitFor({ timeout: 10_000 });
    await row.click();
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
}

/** The label of a view's tab in the editor area. */
export function tabLabel(page: Page, viewId: string) {
    return page.locator(`#theia-main-content-panel .lm-TabBar-tab[id="shell-tab-${viewId}"] .lm-TabBar-tabLabel`);
}

/** A chat file as the tests read it. */
export interface SavedChatFile {
    id: string;
    title: string;
    history: Array<{ role: string; interrupted?: boolean; blocks: Array<{ type: string; text?: string }> }>;
}

/** Every chat saved in a `.qodeassist/chats` folder, parsed; none while the folder does not exist. */
export function savedChats(folder: string): SavedChatFile[] {
    return existsSync(folder)
        ? readdirSync(folder).filter(name => name.endsWith('.json')).map(name => JSON.parse(readFileSync(join(folder, name), 'utf8')) as SavedChatFile)
        : [];
}

/** The texts of a saved chat's user messages, in order. */
export function userTexts(chat: SavedChatFile): string[] {
    return chat.history.filter(message => message.role === 'user')
        .map(message => message.blocks.filter(block => block.type === 'text').map(block => block.text).join(''));
}
