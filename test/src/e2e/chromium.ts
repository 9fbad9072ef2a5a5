import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium } from 'playwright-core';
import { REPO_ROOT } from './browser-app-process';

export const CHROMIUM_PATH = process.env.QODEASSIST_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(REPO_ROOT, 'test', 'e2e', 'screenshots');

const FLAGS = [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'
];

/** Debian's Chromium with the flags this machine needs; never a downloaded browser. */
export async function launchChromium(): Promise<{ browser: Browser; close: () => Promise<void> }> {
    if (!existsSync(CHROMIUM_PATH)) {
        throw new Error(`Chromium not found at ${CHROMIUM_PATH}. Install it with: apt-get install -y chromium`);
    }
    // Playwright gives every launch a new empty profile of its own.
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS, timeout: 60_000 });
    return { browser, close: () => browser.close() };
}

export function screenshotPath(name: string): string {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    return join(SCREENSHOT_DIR, `${name}.png`);
}
