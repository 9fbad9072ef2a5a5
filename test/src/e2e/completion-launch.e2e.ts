import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { ollamaGenerateRecording } from '../fake-provider/recordings';
import { screenshotPath } from './chromium';
import { E2ESession, useBrowserApp } from './e2e-session';
import { openFile } from './theia-page';

/** A stand-in for `ollama serve`: notes its pid, listens after 4 s (long enough to see it starting), completes every FIM request. */
const FAKE_OLLAMA = `
const http = require('node:http');
const fs = require('node:fs');
const [port, marker] = process.argv.slice(2);
fs.appendFileSync(marker, process.pid + '\\n');
setTimeout(() => http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
        const tags = request.url === '/api/tags';
        response.writeHead(200, { 'content-type': tags ? 'application/json' : 'application/x-ndjson' });
        response.end(tags ? '{"models":[]}' : ${JSON.stringify(ollamaGenerateRecording(['a + b;']))});
    });
}).listen(Number(port), '127.0.0.1'), 4000);
`;

function freePort(): Promise<number> {
    return new Promise(done => {
        const server = createServer();
        server.listen(0, '127.0.0.1', () => {
            const port = (server.address() as { port: number }).port;
            server.close(() => done(port));
        });
    });
}

describe('completion status while QodeAssist starts a provider\'s local server ([launch])', function () {
    this.timeout(180_000);
    let port = 0;
    // Runs before the app starts (hooks run in order): the provider file names the port.
    before(async () => { port = await freePort(); });

    // The provider with [launch] is the user's own (a repository's [launch] never runs); the roster is the project's.
    const session: E2ESession = useBrowserApp(() => ({
        userFiles: {
            'fake-ollama.js': FAKE_OLLAMA,
            '.qodeassist/providers/local.toml': `schema_version = 1\nname = "local"\nclient_api = "ollama"\nurl = "http://127.0.0.1:${port}"\n`
                + `[launch]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([join(session.app.home, 'fake-ollama.js'), String(port), marker()])}\nstart_timeout = 30\n`
        },
        files: {
            '.qodeassist/agents/local-fim.toml': 'schema_version = 1\nname = "local-fim"\nextends = "ollama-fim-qwen25coder"\nprovider_instance = "local"\nmodel = "fake-model"\n',
            '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[completion]\nagents = ["local-fim"]\n',
            'src/math.ts': 'export function add(a: number, b: number) {\n    \n}\n'
        },
        settings: { 'qodeassist.completion.debounceMs': 50 }
    }));
    let page: Page;
    const marker = () => join(session.app.home, 'ollama-started');
    before(() => { page = session.page; });
    // The backend stops what it started when it shuts down; a crashed run must not leave the stand-in running either.
    after(() => {
        for (const pid of existsSync(marker()) ? readFileSync(marker(), 'utf8').split('\n').filter(Boolean).map(Number) : []) {
            try {
                process.kill(pid, 'SIGKILL');
            } catch {
                // already gone
            }
        }
    });

    it('the status bar says "starting Local…" while the completion waits, then the completion arrives', async () => {
        await openFile(page, 'math.ts');
        await page.locator('.monaco-editor .view-lines').first().click();
        await page.keyboard.press('Control+Home');
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('End');
        await page.keyboard.type('return ');
        const starting = page.locator('#theia-statusBar .element', { hasText: 'QodeAssist: starting Local…' });
        await starting.waitFor({ timeout: 20_000 });
        await page.screenshot({ path: screenshotPath('completion-starting-server') });
        assert.ok(existsSync(marker()), 'QodeAssist started the server');
        const ghost = page.locator('.monaco-editor .ghost-text-decoration, .monaco-editor .ghost-text').first();
        await ghost.waitFor({ timeout: 30_000 });
        assert.match((await ghost.innerText()).replace(/\u00a0/g, ' '), /a \+ b;/);
        await starting.waitFor({ state: 'hidden', timeout: 10_000 });
        assert.equal(readFileSync(marker(), 'utf8').trim().split('\n').length, 1, 'started once');
    });
});
