import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import type { AgentScript } from '../acp/scripted-acp-agent';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserChat } from './e2e-session';
import { runCommand, waitForTheiaShell } from './theia-page';

const SCRIPTED_AGENT = join(__dirname, '..', 'acp', 'scripted-acp-agent.js');

/** An external (ACP) agent in the chat: the scripted agent fixture as the user's `~/.qodeassist/acp/scripted.toml`. */
describe('an external agent in the chat, in Chromium: plan, tool calls, its permission prompt, an undoable write, modes, a reload', function () {
    this.timeout(240_000);

    const target = () => join(session.app.workspace, 'src', 'app.ts');
    const script = (): AgentScript => ({
        modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask', description: 'Asks before every change' }, { id: 'code', name: 'Code' }] },
        afterNewSession: [{ update: { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'review', description: 'Review the changes', input: { hint: 'what to review' } }] } }],
        turns: [[
            { update: { sessionUpdate: 'plan', entries: [{ content: 'Read app.ts', priority: 'high', status: 'in_progress' }, { content: 'Fix the greeting', priority: 'medium', status: 'pending' }] } },
            { update: { sessionUpdate: 'tool_call', toolCallId: 'read-1', title: 'Read src/app.ts', kind: 'read', status: 'in_progress', locations: [{ path: target(), line: 1 }] } },
            { request: 'fs/read_text_file', params: { path: target() }, save: 'read' },
            { update: { sessionUpdate: 'tool_call_update', toolCallId: 'read-1', status: 'completed' } },
            { update: { sessionUpdate: 'tool_call', toolCallId: 'edit-1', title: 'Edit src/app.ts', kind: 'edit', status: 'pending', locations: [{ path: target() }] } },
            {
                permission: {
                    toolCall: { toolCallId: 'edit-1', title: 'Edit src/app.ts', kind: 'edit', status: 'pending', locations: [{ path: target() }], content: [{ type: 'diff', path: target(), oldText: 'hello\n', newText: 'hello, world\n' }] },
                    options: [{ optionId: 'yes', name: 'Allow', kind: 'allow_once' }, { optionId: 'always', name: 'Always allow', kind: 'allow_always' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }]
                },
                allowed: [
                    { request: 'fs/write_text_file', params: { path: target(), content: 'hello, world\n' } },
                    { update: { sessionUpdate: 'tool_call_update', toolCallId: 'edit-1', status: 'completed', content: [{ type: 'diff', path: target(), oldText: 'hello\n', newText: 'hello, world\n' }] } }
                ]
            },
            { update: { sessionUpdate: 'plan', entries: [{ content: 'Read app.ts', priority: 'high', status: 'completed' }, { content: 'Fix the greeting', priority: 'medium', status: 'completed' }] } },
            { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'The greeting now says hello, world.' } } }
        ]]
    });
    const session = useBrowserChat(fake => ({
        files: { ...workspaceConfiguration(fake.url), 'src/app.ts': 'hello\n' },
        userFiles: {
            '.qodeassist/acp/scripted.toml': [
                'description = "A scripted agent for tests"',
                `command = ${JSON.stringify(process.execPath)}`,
                `args = [${[SCRIPTED_AGENT, JSON.stringify(script())].map(arg => JSON.stringify(arg)).join(', ')}]`
            ].join('\n')
        },
        env: { E2E_API_KEY: 'sk-e2e-acp-0123456789' }
    }));
    let page: Page;
    let chat: ChatPage;

    before(() => ({ page, chat } = session));

    const answer = () => chat.lastAnswer();

    it('is offered under External agents, asks with its own options, shows its plan and tool calls, and writes through the editor', async () => {
        const picker = page.locator('.qa-chat .qa-agent-picker');
        await picker.focus();
        await page.locator('.qa-chat .qa-agent-picker option[value="acp:scripted"]').waitFor({ state: 'attached', timeout: 20_000 });
        assert.equal(await page.locator('.qa-chat .qa-agent-picker optgroup').getAttribute('label'), 'External agents');
        // The bundled catalogue's agents are not installed here: offered disabled, saying how to install them.
        assert.equal(await page.locator('.qa-chat .qa-agent-picker option[value="acp:claude-code"]').isDisabled(), true);
        await picker.selectOption('acp:scripted');
        assert.equal(await page.locator('.qa-chat .qa-token-counter').getAttribute('data-agent-usage'), 'none');

        await chat.send('Fix the greeting');
        const prompt = page.locator('.qa-chat .qa-agent-permission');
        await prompt.waitFor({ state: 'visible', timeout: 30_000 });
        assert.deepEqual(await prompt.locator('button').allTextContents(), ['Allow', 'Always allow', 'Reject']);
        assert.match(await prompt.locator('.qa-diff').textContent() ?? '', /\+hello, world/);
        assert.equal(readFileSync(target(), 'utf8'), 'hello\n', 'nothing is written before the answer');
        await page.screenshot({ path: screenshotPath('acp-chat-permission') });
        await prompt.locator('button[data-option-kind=allow_once]').click();

        await chat.waitForLastAnswer('done', 30_000);
        await page.waitForFunction(() => document.querySelector('.qa-chat .qa-agent-plan-title')?.textContent?.includes('2 of 2'), undefined, { timeout: 10_000 });
        assert.deepEqual(await answer().locator('.qa-agent-call .qa-agent-call-title').allTextContents(), ['Read src/app.ts', 'Edit src/app.ts']);
        assert.deepEqual(await answer().locator('.qa-agent-call').evaluateAll(calls => calls.map(call => call.getAttribute('data-status'))), ['completed', 'completed']);
        assert.match(await answer().locator('.qa-agent-location').first().textContent() ?? '', /app\.ts:1$/);
        assert.match(await answer().textContent() ?? '', /The greeting now says hello, world\./);
        assert.equal(readFileSync(target(), 'utf8'), 'hello, world\n');
        // The agent's modes, from its session.
        assert.deepEqual(await page.locator('.qa-chat .qa-agent-mode option').allTextContents(), ['Ask', 'Code']);
        await page.screenshot({ path: screenshotPath('acp-chat-transcript') });

        // The write is one of the chat's edits: Undo takes it back on disk.
        await answer().locator('[data-action=undo]').click();
        await answer().locator('[data-action=apply]').waitFor({ state: 'visible', timeout: 10_000 });
        const deadline = Date.now() + 10_000;
        while (readFileSync(target(), 'utf8') !== 'hello\n' && Date.now() < deadline) {
            await new Promise(resolve => setTimeout(resolve, 100));
        }
        assert.equal(readFileSync(target(), 'utf8'), 'hello\n');
    });

    it('a reload shows the tool calls and the plan again, from the saved chat', async () => {
        await page.reload();
        await waitForTheiaShell(page);
        await chat.input.waitFor({ state: 'visible', timeout: 20_000 });
        await page.locator('.qa-chat .qa-agent-plan').waitFor({ state: 'visible', timeout: 20_000 });
        assert.deepEqual(await page.locator('.qa-chat .qa-agent-call .qa-agent-call-title').allTextContents(), ['Read src/app.ts', 'Edit src/app.ts']);
        assert.match(await page.locator('.qa-chat .qa-agent-plan-title').textContent() ?? '', /2 of 2/);
    });

    it('the configuration view lists the agents: installed or not found with how to install, the command, and a Test handshake', async () => {
        await runCommand(page, 'QodeAssist: Open Configuration');
        const section = page.locator('[data-section=external-agents]');
        await section.waitFor({ state: 'visible', timeout: 20_000 });
        const scripted = section.locator('tr[data-external-agent=scripted]');
        assert.equal(await scripted.getAttribute('data-installed'), 'yes');
        const claude = section.locator('tr[data-external-agent=claude-code]');
        assert.equal(await claude.getAttribute('data-installed'), 'no');
        assert.match(await claude.textContent() ?? '', /npm install -g @agentclientprotocol\/claude-agent-acp/);
        assert.match(await claude.locator('code').textContent() ?? '', /^claude-agent-acp$/);
        await scripted.locator('[data-action=test-external-agent]').click();
        await scripted.locator('[data-status=ok]').waitFor({ state: 'visible', timeout: 30_000 });
        assert.match(await scripted.locator('[data-status=ok]').textContent() ?? '', /Scripted agent 1\.0\.0 · ACP v1 · takes images, embedded files, loading sessions/);
        await section.scrollIntoViewIfNeeded();
        await page.screenshot({ path: screenshotPath('acp-configuration') });
    });
});
