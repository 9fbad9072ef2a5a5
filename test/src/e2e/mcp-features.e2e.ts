import { FeatureServerFixture, sdkShape } from '@qodeassist/core/lib/mcp/mcp-features.spec-support';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import * as assert from 'node:assert/strict';
import { Page } from 'playwright-core';
import { z } from 'zod';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { runCommand } from './theia-page';

const KEY = 'sk-e2e-mcp-features-0123456789abcdef';

describe('MCP resources, prompts and a server\'s question in the chat, in Chromium', function () {
    this.timeout(180_000);

    const answers: ElicitResult[] = [];
    const server = new FeatureServerFixture(mcp => {
        mcp.registerResource('readme', 'docs://readme.md', { mimeType: 'text/markdown' }, async uri => ({ contents: [{ uri: uri.href, text: '# Read me: the docs resource' }] }));
        mcp.registerPrompt('review', { description: 'Review a file', argsSchema: sdkShape({ file: z.string() }) }, async args => ({
            messages: [{ role: 'user', content: { type: 'text', text: `Please review ${String(args.file)} closely.` } }]
        }));
        mcp.registerTool('setup', { description: 'Asks the user for settings' }, async () => {
            const answer = await mcp.server.elicitInput({
                message: 'Which region?',
                requestedSchema: { type: 'object', properties: { region: { type: 'string', enum: ['eu', 'us'] }, apiKey: { type: 'string', default: 'sk-server-default' } }, required: ['region'] }
            });
            answers.push(JSON.parse(JSON.stringify(answer)));
            return { content: [{ type: 'text', text: `region set: ${JSON.stringify(answer.content)}` }] };
        });
    });
    let url = '';
    before(async () => { url = await server.listen(); });
    after(() => server.dispose());

    const session = useBrowserApp(fake => ({
        files: workspaceConfiguration(fake.url),
        // The user's own mcp.json: a hub server that needs no consent.
        userFiles: { '.qodeassist/mcp.json': JSON.stringify({ mcpServers: { srv: { url } } }) },
        env: { E2E_API_KEY: KEY }
    }));
    const { fake } = session;
    let page: Page;
    let chat: ChatPage;
    before(async () => {
        page = session.page;
        await runCommand(page, 'QodeAssist: Open Chat in Editor Area');
        chat = new ChatPage(page);
        await chat.input.waitFor({ timeout: 20_000 });
    });

    const lastUserContent = () => {
        const messages = JSON.parse(fake.lastModelRequest()!.body).messages as Array<{ role: string; content: unknown }>;
        return JSON.stringify(messages.filter(message => message.role === 'user').at(-1)?.content);
    };

    it('@ offers the server\'s resource; choosing it attaches it and the message carries its text', async () => {
        const suggestion = page.locator('.qa-chat .qa-suggestion[data-value="srv:docs://readme.md"]');
        for (let attempt = 0; attempt < 20 && !await suggestion.isVisible(); attempt++) {
            // The server connects while the window starts: the offers come with its first listing.
            await chat.input.fill('');
            await chat.input.pressSequentially('summarize @readme');
            await suggestion.waitFor({ timeout: 1_000 }).catch(() => undefined);
        }
        await page.screenshot({ path: screenshotPath('mcp-resource-mention') });
        await chat.input.press('Enter');
        await page.locator('.qa-chat .qa-composer .qa-chip[data-attachment="srv:readme.md"]').waitFor({ timeout: 10_000 });
        assert.equal(await chat.input.inputValue(), 'summarize ');
        fake.enqueue({ kind: 'replay', recording: openAITextRecording('It is a readme.') });
        await chat.submit();
        await chat.waitForLastAnswer('done');
        assert.match(lastUserContent(), /# Read me: the docs resource/);
    });

    it('/ offers the server\'s prompt as /mcp.srv.review; its argument is asked in the composer and the result goes into the message', async () => {
        await chat.input.fill('');
        await chat.input.pressSequentially('/mcp.srv.re');
        await page.locator('.qa-chat .qa-suggestion[data-value="mcp.srv.review"]').waitFor({ timeout: 10_000 });
        await chat.input.press('Enter');
        const form = page.locator('.qa-chat .qa-prompt-form[data-prompt="mcp.srv.review"]');
        await form.waitFor({ timeout: 10_000 });
        const field = form.locator('input[data-argument=file]');
        assert.equal(await field.evaluate(element => element === document.activeElement), true, 'the first field has the focus');
        assert.equal(await field.getAttribute('aria-required'), 'true');
        assert.equal(await form.getAttribute('aria-label'), 'Arguments of /mcp.srv.review');
        // Enter with the required argument empty names it; nothing is asked of the server.
        await page.keyboard.press('Enter');
        assert.equal(await form.locator('[role=alert]').textContent(), ' "file" is required by /mcp.srv.review: fill it in, or press Escape to cancel.');
        await page.keyboard.type('src/a.ts');
        await page.screenshot({ path: screenshotPath('mcp-prompt-arguments') });
        await page.keyboard.press('Enter');
        await page.waitForFunction(() => (document.querySelector('.qa-chat .qa-input') as HTMLTextAreaElement | null)?.value === 'Please review src/a.ts closely.', undefined, { timeout: 10_000 });
        assert.equal(await form.count(), 0, 'the form is gone');
        // Typed with its argument, Enter runs the prompt into the draft instead of sending the command.
        await chat.input.fill('/mcp.srv.review "file=src/b c.ts"');
        await chat.input.press('Enter');
        await page.waitForFunction(() => (document.querySelector('.qa-chat .qa-input') as HTMLTextAreaElement | null)?.value === 'Please review src/b c.ts closely.', undefined, { timeout: 10_000 });
    });

    it('a tool\'s question shows as a form in the chat, warns on the key field and fills nothing; Accept sends what the user chose', async () => {
        await chat.input.fill('');
        fake.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 't1', name: 'mcp_srv_setup', arguments: {} }]) },
            { kind: 'replay', recording: openAITextRecording('Set up.') }
        );
        await chat.send('set it up');
        const permission = page.locator('.qa-chat .qa-permission[data-tool=mcp_srv_setup]');
        await permission.waitFor({ timeout: 30_000 });
        await permission.locator('button[data-answer=allow-once]').click();
        const form = page.locator('.qa-chat .qa-mcp-elicitation[data-server=srv]');
        await form.waitFor({ timeout: 20_000 });
        assert.match(await form.locator('[data-warning=secret]').textContent() ?? '', /"apiKey", which reads like a key or password/);
        assert.equal(await form.locator('#qa-mcp-field-apiKey').inputValue(), '', 'the server\'s default is not filled in');
        assert.equal(await form.locator('#qa-mcp-field-apiKey').getAttribute('type'), 'password');
        await page.screenshot({ path: screenshotPath('mcp-elicitation-form') });
        await form.locator('button[data-answer=accept]').click();
        assert.match(await form.locator('.qa-mcp-elicitation-problem').textContent({ timeout: 10_000 }) ?? '', /region: required/);
        await form.locator('#qa-mcp-field-region').selectOption('eu');
        await form.locator('button[data-answer=accept]').click();
        await chat.waitForLastAnswer('done', 30_000);
        assert.deepEqual(answers, [{ action: 'accept', content: { region: 'eu' } }]);
        const sent = server.bodies.join('\n');
        assert.ok(!sent.includes(KEY) && !sent.includes('sk-server-default'), 'no key went to the server');
    });
});
