import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserChat } from './e2e-session';

describe('plan mode in Chromium: read tools only, the plan as an editable checklist, Act with the plan pinned', function () {
    this.timeout(180_000);

    const session = useBrowserChat(fake => ({
        files: { ...workspaceConfiguration(fake.url), 'src/app.ts': 'export const port = 8080;\n' },
        env: { E2E_API_KEY: 'sk-e2e-plan-0123456789' }
    }));
    const { fake, app } = session;
    let page: Page;
    let chat: ChatPage;

    before(() => ({ page, chat } = session));

    const modelRequests = () => fake.requests.filter(request => request.method === 'POST');
    const bodyOf = (index: number) => JSON.parse(modelRequests()[index].body) as { messages: unknown[]; tools?: Array<{ function: { name: string } }> };
    const toolNames = (index: number) => (bodyOf(index).tools ?? []).map(tool => tool.function.name);

    it('a plan turn offers no write tool and runs none; the edited plan goes with Act, which offers the tools again', async () => {
        await page.locator('.qa-chat .qa-mode-picker').selectOption('plan');
        fake.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 't1', name: 'todo', arguments: { action: 'add', text: 'Change the port to 9090' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'w1', name: 'create_file', arguments: { path: 'sneaky.txt', content: 'no' } }]) },
            { kind: 'replay', recording: openAITextRecording('Plan: change the port in src/app.ts.') }
        );
        const before = modelRequests().length;
        await chat.send('Plan the port change');
        await chat.waitForLastAnswer('done');
        const offered = toolNames(before);
        assert.ok(offered.includes('read_file') && !offered.includes('create_file') && !offered.includes('edit_file'), offered.join(', '));
        assert.ok(!existsSync(join(app.workspace, 'sneaky.txt')), 'the write named in plan mode did not run');

        await page.locator('.qa-chat [data-action=edit-plan]').click();
        const text = page.locator('.qa-chat .qa-plan-text');
        await text.waitFor({ timeout: 10_000 });
        assert.equal(await text.inputValue(), 'Plan: change the port in src/app.ts.\n\n[ ] 1. Change the port to 9090');
        await text.fill('Plan: change the port in src/app.ts.\n\n[ ] 1. Change the port to 9191 instead');
        await page.screenshot({ path: screenshotPath('plan-mode-editor') });

        fake.enqueue({ kind: 'replay', recording: openAITextRecording('Acting on it.') });
        const act = modelRequests().length;
        await page.locator('.qa-chat .qa-plan-editor [data-action=act]').click();
        await chat.waitForLastAnswer('done');
        assert.equal(await page.locator('.qa-chat .qa-mode-picker').inputValue(), 'act');
        assert.ok(toolNames(act).includes('edit_file'), toolNames(act).join(', '));
        const sent = JSON.stringify(bodyOf(act).messages);
        assert.match(sent, /The plan agreed in plan mode.*Change the port to 9191 instead/);
        assert.match(sent, /Carry out the plan\./);
        await page.screenshot({ path: screenshotPath('plan-mode-act') });
    });
});
