import { Browser, Page } from 'playwright-core';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { BrowserAppOptions, BrowserAppProcess } from './browser-app-process';
import { ChatPage } from './chat-page';
import { launchChromium, screenshotPath } from './chromium';
import { runCommand, waitForTheiaShell } from './theia-page';

/** What a suite of end-to-end tests drives: the fake provider, the browser-app and a Chromium page on it. */
export interface E2ESession {
    readonly fake: FakeProviderServer;
    readonly app: BrowserAppProcess;
    readonly page: Page;
    readonly chromium: Browser;
}

/**
 * Registers the suite's hooks: the fake provider (set up by `prepare`), the browser-app with
 * its workspace, Chromium on the app's page past the trust dialog; a screenshot of every
 * failed test; everything stopped afterwards.
 */
export function useBrowserApp(options: (fake: FakeProviderServer) => BrowserAppOptions, prepare: (fake: FakeProviderServer) => void = () => undefined): E2ESession {
    const fake = new FakeProviderServer();
    const app = new BrowserAppProcess();
    let chromium: { browser: Browser; close: () => Promise<void> } | undefined;
    let page: Page | undefined;
    before(async () => {
        await fake.start();
        prepare(fake);
        const appOptions = options(fake);
        await app.start(appOptions);
        chromium = await launchChromium();
        page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(app.url);
        await waitForTheiaShell(page, appOptions.trustWorkspace ?? true);
    });
    afterEach(async function () {
        if (this.currentTest?.state === 'failed' && page) {
            await page.screenshot({ path: screenshotPath(`failed-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`) });
        }
    });
    after(async () => {
        await chromium?.close();
        await app.stop();
        await fake.stop();
    });
    return {
        fake, app,
        get page(): Page {
            if (!page) {
                throw new Error('The page is not open yet: use it inside a test or a later hook.');
            }
            return page;
        },
        get chromium(): Browser {
            if (!chromium) {
                throw new Error('Chromium is not running yet.');
            }
            return chromium.browser;
        }
    };
}

/** A suite's session whose chat view is open, its input ready. */
export interface ChatE2ESession extends E2ESession {
    readonly chat: ChatPage;
}

/** Where a suite opens its chat before the tests: most drive it in the editor area, some where `Open Chat` puts it. */
export type ChatPlacementCommand = 'QodeAssist: Open Chat in Editor Area' | 'QodeAssist: Open Chat';

/** `useBrowserApp`, then the chat opened with `open` before the tests, its input visible. */
export function useBrowserChat(
    options: (fake: FakeProviderServer) => BrowserAppOptions, prepare?: (fake: FakeProviderServer) => void, open: ChatPlacementCommand = 'QodeAssist: Open Chat in Editor Area'
): ChatE2ESession {
    const session = useBrowserApp(options, prepare);
    let chat: ChatPage | undefined;
    before(async () => {
        await runCommand(session.page, open);
        chat = new ChatPage(session.page);
        await chat.input.waitFor({ state: 'visible', timeout: 20_000 });
    });
    return {
        fake: session.fake,
        app: session.app,
        get page(): Page {
            return session.page;
        },
        get chromium(): Browser {
            return session.chromium;
        },
        get chat(): ChatPage {
            if (!chat) {
                throw new Error('The chat is not open yet: use it inside a test or a later hook.');
            }
            return chat;
        }
    };
}
