/**
 * How far the load benchmark's headless window stands from a real one: two backends of the built
 * browser-app, one with the headless window, one with Chromium's page (the shell loaded, shapes.ts
 * open in an editor, the chat view open), each after one chat turn with its tool round, left to
 * settle, then the backend's process tree measured. Chromium's own processes are not the backend's and are not counted.
 */
import { BrowserAppProcess, BROWSER_APP_MAIN } from '../e2e/browser-app-process';
import { ChatPage } from '../e2e/chat-page';
import { launchChromium } from '../e2e/chromium';
import { openFile, runCommand, waitForTheiaShell } from '../e2e/theia-page';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { respond } from './load-benchmark';
import { findProcess, treeUsage } from './load-proc';
import { windowSide } from './load-real-benchmark';
import { FILE_TEXT, LOAD_KEY, LOAD_KEY_VARIABLE, userConfiguration } from './load-session';
import { HeadlessWindow } from './load-window-client';

const SETTLE_MS = 5_000;

export interface WindowCheck {
    /** The backend's RSS with the headless window, after one chat turn. */
    headlessMb: number;
    /** The backend's RSS with Chromium's page, after one chat turn in the chat view. */
    chromiumMb: number;
}

async function started(fakeUrl: string): Promise<{ app: BrowserAppProcess; pid: number }> {
    const app = new BrowserAppProcess();
    await app.start({ files: { 'src/shapes.ts': FILE_TEXT }, userFiles: userConfiguration(fakeUrl), env: { [LOAD_KEY_VARIABLE]: LOAD_KEY }, startTimeoutMs: 180_000 });
    const pid = findProcess([BROWSER_APP_MAIN, app.workspace]);
    if (pid === undefined) {
        await app.stop();
        throw new Error(`The backend of ${app.workspace} is not among the running processes: it exited after it started?\n${app.log}`);
    }
    return { app, pid };
}

const settled = async (pid: number) => {
    await new Promise(resolve => setTimeout(resolve, SETTLE_MS));
    return treeUsage(pid).rssBytes / 1024 / 1024;
};

export async function measureWindowCheck(): Promise<WindowCheck> {
    const fake = new FakeProviderServer({ maxLifetimeMs: 10 * 60_000 });
    await fake.start();
    fake.setDefault({ kind: 'dynamic', respond });
    try {
        const headless = await started(fake.url);
        let headlessMb: number;
        try {
            const window = await HeadlessWindow.open(headless.app.url);
            try {
                await windowSide(window, headless.app.workspace).chatTurn('Explain shapes.ts');
                headlessMb = await settled(headless.pid);
            } finally {
                window.close();
            }
        } finally {
            await headless.app.stop();
        }

        const real = await started(fake.url);
        const chromium = await launchChromium();
        try {
            const page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
            // The frontend bundle is large; on two shared cores its first load takes longer than Playwright's default 30 s.
            await page.goto(real.app.url, { timeout: 180_000 });
            await waitForTheiaShell(page, true);
            await openFile(page, 'src/shapes.ts');
            await runCommand(page, 'QodeAssist: Open Chat');
            const chat = new ChatPage(page);
            await chat.input.waitFor({ state: 'visible', timeout: 20_000 });
            await chat.send('Explain shapes.ts');
            await chat.waitForLastAnswer('done', 60_000);
            return { headlessMb, chromiumMb: await settled(real.pid) };
        } finally {
            await chromium.close();
            await real.app.stop();
        }
    } finally {
        await fake.stop();
    }
}
