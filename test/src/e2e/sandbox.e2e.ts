import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserChat } from './e2e-session';
import { runCommand } from './theia-page';

const API_KEY = 'sk-e2e-sandbox-key-0123456789abcdef';
const FILE_KEY = 'sk-e2e-sandbox-file-key-fedcba9876543210';

/**
 * The terminal tool driven from the chat of the real app: the model asks for the backend's
 * environment, the user's key file and a write into the home; the user allows each command,
 * and none of them gets what it asked for. The result names the sandbox it ran in.
 */
describe('Commands the model runs are sandboxed (Chromium)', function () {
    this.timeout(180_000);
    const session = useBrowserChat(fake => ({
        files: workspaceConfiguration(fake.url),
        env: { E2E_API_KEY: API_KEY },
        userFiles: {
            '.theia/settings.json': JSON.stringify({ 'qodeassist.tools.terminal.allowedCommands': ['cat', 'touch'] }),
            '.qodeassist/secrets.json': JSON.stringify({ unused: FILE_KEY })
        }
    }), undefined, 'QodeAssist: Open Chat');
    const { fake, app } = session;
    let page: Page;
    before(() => ({ page } = session));

    it('cat /proc/1/environ and the key file print no key, touch ~/outside fails, and each result names the sandbox', async () => {
        const outsideFile = join(app.home, 'outside');
        const commands = ['cat /proc/1/environ', `cat ${join(app.home, '.qodeassist', 'secrets.json')}`, `touch ${outsideFile}`];
        fake.enqueue(
            ...commands.map((command, index) => ({ kind: 'replay' as const, recording: openAIToolCallsRecording([{ id: `t${index}`, name: 'execute_terminal_command', arguments: { command } }]) })),
            { kind: 'replay', recording: openAITextRecording('Nothing there.') }
        );
        const chat = new ChatPage(page);
        await chat.send('look around the machine');
        for (let index = 0; index < commands.length; index++) {
            const prompt = page.locator('.qa-chat .qa-permission[data-tool=execute_terminal_command]');
            await prompt.waitFor({ timeout: 30_000 });
            await prompt.locator('button[data-answer=allow-once]').click();
            await prompt.waitFor({ state: 'detached', timeout: 30_000 });
        }
        await chat.waitForLastAnswer('done', 60_000);

        // What went back to the model: one tool result per command, in order.
        const last = JSON.parse(fake.lastModelRequest()!.body) as { messages: Array<{ role: string; content: string }> };
        const results = last.messages.filter(message => message.role === 'tool').map(message => message.content);
        assert.equal(results.length, 3, JSON.stringify(results));
        for (const result of results) {
            assert.match(result, /^\$ [^\n]+\n\[sandbox: bubblewrap \(pid namespace, read-only system, workspace writable, secrets hidden, network on\)\]\n/);
        }
        assert.match(results[0], /PATH=/, 'pid 1 is the sandbox\'s own process');
        // The app's home lies under /tmp, which the sandbox replaces with its own: the folder is not even there.
        assert.match(results[2], /cannot touch [^\n]*: (Read-only file system|No such file or directory)\n+\[exited with code 1\]$/);
        assert.equal(existsSync(outsideFile), false, 'a file was written into the home');
        const everything = fake.requests.map(request => request.body).join('\n');
        assert.equal(everything.includes(API_KEY), false, 'the backend\'s key reached the model');
        assert.equal(everything.includes(FILE_KEY), false, 'the key file reached the model');

        const tool = chat.lastAnswer().locator('.qa-tool[data-tool=execute_terminal_command]').first();
        await tool.locator('summary').click();
        assert.match(await tool.textContent() ?? '', /sandbox: bubblewrap/);
        await page.screenshot({ path: screenshotPath('sandbox-tool-result') });
        assert.equal((await chat.lastAnswer().textContent() ?? '').includes(API_KEY), false);
    });

    it('the configuration view says commands run in the sandbox', async () => {
        await runCommand(page, 'QodeAssist: Open Configuration');
        const notice = page.locator('.qa-config-root [data-sandbox=bubblewrap]');
        await notice.waitFor({ timeout: 20_000 });
        assert.match(await notice.textContent() ?? '', /Commands run in a sandbox: bubblewrap/);
    });
});
