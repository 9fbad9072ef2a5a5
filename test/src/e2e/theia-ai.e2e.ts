import * as assert from 'node:assert/strict';
import { Page } from 'playwright-core';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserApp } from './e2e-session';
import { runCommand } from './theia-page';

/** A Theia AI custom agent whose prompt offers QodeAssist's read_file tool. */
const READER_AGENT = [
    '---',
    'name: Reader',
    'description: Reads workspace files with QodeAssist tools.',
    'defaultLLM: fake-theia',
    '---',
    'You read files. Use ~{qodeassist_read_file} to read a file before answering about it.',
    ''
].join('\n');

/** A Theia AI custom agent that runs on QodeAssist's fake-chat agent as its language model. */
const ASKER_AGENT = [
    '---',
    'name: Asker',
    'description: Answers through a QodeAssist agent.',
    'defaultLLM: qodeassist/fake-chat',
    '---',
    'You are Asker. Read files with ~{qodeassist_read_file} before answering.',
    ''
].join('\n');

/** A QodeAssist agent on Theia's language model "fake-theia" (the OpenAI-compatible model of the settings below). */
const ON_THEIA_AGENT = 'schema_version = 1\nname = "on-theia"\nextends = "theia-base"\nmodel = "fake-theia"\n';

describe('Theia AI interop in Chromium: Theia\'s agents call QodeAssist tools, QodeAssist agents use Theia\'s models', function () {
    this.timeout(180_000);

    const session = useBrowserApp(fake => ({
        files: {
            ...workspaceConfiguration(fake.url),
            '.qodeassist/agents/on-theia.toml': ON_THEIA_AGENT,
            '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[chat]\nagents = ["on-theia", "fake-chat"]\n',
            'notes.txt': 'The secret word is marmalade.\n'
        },
        userFiles: { '.theia/prompt-templates/agents/reader/agent.md': READER_AGENT, '.theia/prompt-templates/agents/asker/agent.md': ASKER_AGENT },
        env: { E2E_API_KEY: 'sk-e2e-qodeassist-0123456789' },
        settings: {
            'ai-features.openAiCustom.customOpenAiModels': [{ model: 'fake-model', url: `${fake.url}/v1`, id: 'fake-theia', apiKey: 'sk-e2e-theia-0123456789', enableStreaming: true }]
        },
    }));
    const { fake } = session;
    let page: Page;
    before(() => { page = session.page; });

    it('a Theia AI chat agent calls qodeassist_read_file after Theia asks, and the model gets the file', async () => {
        fake.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'call_read', name: 'qodeassist_read_file', arguments: { path: 'notes.txt' } }]) },
            { kind: 'replay', recording: openAITextRecording('The word is marmalade.') }
        );
        await page.keyboard.press('Control+Alt+i');
        const input = page.locator('#chat-input-widget .monaco-editor textarea').first();
        await input.waitFor({ timeout: 20_000 });
        await page.screenshot({ path: screenshotPath('theia-ai-chat-open') });
        await page.locator('#chat-input-widget .monaco-editor').first().click({ force: true });
        await page.keyboard.type('@Reader what is the secret word in notes.txt?');
        await page.keyboard.press('Enter');

        const confirmation = page.locator('.theia-tool-confirmation', { hasText: 'Confirm Tool Execution' }).last();
        await confirmation.waitFor({ timeout: 30_000 });
        assert.match(await confirmation.textContent() ?? '', /qodeassist_read_file/);
        const first = fake.lastModelRequest()!;
        const offered = JSON.parse(first.body).tools.map((tool: { function: { name: string } }) => tool.function.name);
        assert.ok(offered.includes('qodeassist_read_file'), `the agent offered ${offered.join(', ')}`);
        assert.equal(fake.requests.filter(request => request.method === 'POST').length, 1, 'nothing runs before the user allows it');
        await page.screenshot({ path: screenshotPath('theia-ai-tool-confirm') });

        await page.getByRole('button', { name: 'Allow', exact: true }).click();
        await page.locator('#chat-view-widget', { hasText: 'The word is marmalade.' }).waitFor({ timeout: 30_000 });
        const second = fake.lastModelRequest()!;
        const toolMessage = JSON.parse(second.body).messages.find((message: { role: string }) => message.role === 'tool');
        assert.equal(toolMessage?.tool_call_id, 'call_read');
        assert.match(JSON.stringify(toolMessage.content), /The secret word is marmalade\./, 'the model read the file through QodeAssist\'s read_file');
        await page.screenshot({ path: screenshotPath('theia-ai-tool-answer') });
    });

    it('a QodeAssist agent with client_api "theia" chats through Theia\'s language model, QodeAssist running the tool round', async () => {
        fake.reset();
        fake.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'call_qa', name: 'read_file', arguments: { path: 'notes.txt' } }]) },
            { kind: 'replay', recording: openAITextRecording('QodeAssist read it: marmalade.') }
        );
        await runCommand(page, 'QodeAssist: Open Chat');
        const chat = new ChatPage(page);
        await chat.input.waitFor({ timeout: 20_000 });
        await chat.send('What is the secret word in notes.txt?');
        await chat.waitForLastAnswer('done', 30_000);
        assert.match(await chat.lastAnswer().textContent() ?? '', /QodeAssist read it: marmalade\./);
        assert.match(await chat.lastAnswer().textContent() ?? '', /read_file/, 'the tool block shows in QodeAssist\'s chat');

        const posts = fake.requests.filter(request => request.method === 'POST');
        assert.equal(posts.length, 2, 'one request per round: the handed-over round sends nothing more');
        assert.equal(posts[0].headers.authorization, 'Bearer sk-e2e-theia-0123456789', 'Theia\'s model, with the key from Theia\'s settings');
        const first = JSON.parse(posts[0].body);
        assert.equal(first.model, 'fake-model');
        assert.ok(first.tools.some((tool: { function: { name: string } }) => tool.function.name === 'read_file'), 'QodeAssist\'s tools are offered');
        const second = JSON.parse(posts[1].body);
        const assistant = second.messages.find((message: { role: string; tool_calls?: unknown[] }) => message.role === 'assistant' && message.tool_calls);
        assert.equal(assistant.tool_calls[0].id, 'call_qa');
        const result = second.messages.find((message: { role: string }) => message.role === 'tool');
        assert.equal(result.tool_call_id, 'call_qa');
        assert.match(JSON.stringify(result.content), /The secret word is marmalade/);
        await page.screenshot({ path: screenshotPath('theia-ai-qodeassist-on-theia-model') });
    });

    it('a Theia AI agent runs on a QodeAssist agent as its language model; the Theia tool it offers runs after Theia asks', async () => {
        fake.reset();
        fake.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'call_asker', name: 'qodeassist_read_file', arguments: { path: 'notes.txt' } }]) },
            { kind: 'replay', recording: openAITextRecording('Asker via QodeAssist: marmalade.') }
        );
        await page.keyboard.press('Control+Alt+i');
        await page.locator('#chat-input-widget .monaco-editor').first().click({ force: true });
        await page.keyboard.type('@Asker what is the secret word in notes.txt?');
        await page.keyboard.press('Enter');

        const confirmation = page.locator('.theia-tool-confirmation', { hasText: 'Confirm Tool Execution' }).last();
        await confirmation.waitFor({ timeout: 30_000 });
        assert.equal(fake.requests.filter(request => request.method === 'POST').length, 1, 'QodeAssist\'s loop waits for Theia\'s confirmation');
        const first = fake.lastModelRequest()!;
        assert.equal(first.headers.authorization, 'Bearer sk-e2e-qodeassist-0123456789', 'QodeAssist\'s provider and key answered, not Theia\'s');
        const body = JSON.parse(first.body);
        assert.equal(body.messages[0].role, 'system');
        assert.match(body.messages[0].content, /You are Asker\./, 'the Theia agent\'s prompt is the system prompt');
        assert.ok(body.tools.some((tool: { function: { name: string } }) => tool.function.name === 'qodeassist_read_file'), 'the Theia agent\'s tools are offered');
        await page.screenshot({ path: screenshotPath('theia-ai-agent-on-qodeassist-confirm') });
        await page.getByRole('button', { name: 'Allow', exact: true }).click();

        await page.locator('#chat-view-widget', { hasText: 'Asker via QodeAssist: marmalade.' }).waitFor({ timeout: 30_000 });
        const posts = fake.requests.filter(request => request.method === 'POST');
        assert.equal(posts.length, 2);
        const result = JSON.parse(posts[1].body).messages.filter((message: { role: string }) => message.role === 'tool').at(-1);
        assert.equal(result.tool_call_id, 'call_asker');
        assert.match(JSON.stringify(result.content), /The secret word is marmalade/);
        await page.screenshot({ path: screenshotPath('theia-ai-agent-on-qodeassist-model') });
    });
});
