import { Page } from 'playwright-core';

/** Waits until the Theia shell is up and the loading screen is gone. */
export async function waitForTheiaShell(page: Page, trusted = true): Promise<void> {
    await page.waitForSelector('#theia-app-shell', { timeout: 60_000 });
    await page.waitForSelector('.theia-preload', { state: 'detached', timeout: 60_000 });
    await answerTrustDialog(page, trusted);
}

/** Answers Theia's workspace-trust dialog: yes, as a user opening their own folder would, or no, for a stranger's repository. */
export async function answerTrustDialog(page: Page, trusted: boolean): Promise<void> {
    const trust = page.getByRole('button', { name: trusted ? 'Yes, I trust the authors' : 'No, I don\'t trust the authors' });
    try {
        await trust.waitFor({ state: 'visible', timeout: 10_000 });
    } catch {
        return; // Trust is off or already granted: no dialog.
    }
    await trust.click();
    await trust.waitFor({ state: 'detached', timeout: 10_000 });
}

/** Runs a command through the command palette, as a user would. */
export async function runCommand(page: Page, label: string): Promise<void> {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(`>${label}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
    await row.waitFor({ state: 'visible', timeout: 10_000 });
    await input.press('Enter');
}

/**
 * Opens a workspace file through Quick Open, as a user would, and waits until its editor is the
 * current tab: clicking the row (not Enter on whatever row is active while the search still runs).
 */
export async function openFile(page: Page, relativePath: string): Promise<void> {
    const name = relativePath.split('/').pop()!;
    await page.keyboard.press('Control+p');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(relativePath);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().click({ timeout: 10_000 });
    await page.locator('#theia-main-content-panel .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel', { hasText: name }).waitFor({ timeout: 10_000 });
    await page.locator('#theia-main-content-panel .monaco-editor .view-lines').first().waitFor({ timeout: 10_000 });
}
