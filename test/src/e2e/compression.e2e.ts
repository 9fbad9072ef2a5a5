import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { RecordedRequest } from '../fake-provider/fake-provider-server';
import { HangScenario, ReplayScenario, StatusScenario } from '../fake-provider/scenarios';
import { openAITextRecording } from '../fake-provider/recordings';
import { ChatPage } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserChat } from './e2e-session';

const SUMMARY_PROMPT = 'Summarize the conversation below';
const SUMMARY = 'The user works on a parser in several long steps.';
/** About 260 tokens of a user's request, numbered so each turn can be told apart in a request body. */
const longRequest = (turn: number) => `Request ${turn}: ${`step ${turn} of the parser work `.repeat(40).trim()}`;

/**
 * Summaries in the browser: Stop while one is made leaves the chat as it was, a failed one says why,
 * and a chat whose agent has a small context window is summarized by itself before the send that
 * would fill more than `qodeassist.chat.autoCompressPercent` of it; the answer then arrives in the summary chat.
 */
describe('chat compression in Chromium: stoppable summaries and auto-compression', function () {
    this.timeout(240_000);

    /** How the fake answers the next summary request. */
    let summaryMode: 'hang' | 'fail' | 'slow' = 'hang';
    const summaryScenario = (): ReplayScenario | StatusScenario | HangScenario => summaryMode === 'hang' ? { kind: 'hang' }
        : summaryMode === 'fail' ? { kind: 'status', status: 400, body: JSON.stringify({ error: { message: 'The summary model is overloaded' } }) }
        : { kind: 'replay', recording: openAITextRecording(SUMMARY), firstByteDelayMs: 1_500 };

    const session = useBrowserChat(fake => ({
        files: {
            '.qodeassist/providers/fake.toml': `schema_version = 1\nname = "fake"\nclient_api = "openai_compatible"\nurl = "${fake.url}/v1"\napi_key_ref = "e2e"\n`,
            // 2000 tokens of context, 500 of them for the reply: a few long requests fill it.
            '.qodeassist/agents/small-chat.toml': 'schema_version = 1\nname = "small-chat"\nextends = "openai-base"\nprovider_instance = "fake"\nmodel = "fake-model"\n'
                + 'context_window = 2000\nenable_tools = false\nsystem_prompt = "You help with code."\n',
            '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[chat]\nagents = ["small-chat"]\n\n[compression]\nagents = ["small-chat"]\n'
        },
        settings: { 'qodeassist.chat.autoCompressPercent': 70 },
        env: { E2E_API_KEY: 'sk-e2e-compression-0123456789' }
    }), fake => fake
        .when({ bodyIncludes: SUMMARY_PROMPT, scenario: { kind: 'dynamic', respond: summaryScenario } })
        // Each answer names its request and reports a realistic prompt size: the token estimator calibrates on it.
        .when({
            protocol: 'openai-chat', scenario: {
                kind: 'dynamic',
                respond: body => ({ kind: 'replay', recording: openAITextRecording(`Answer ${/Request (\d+)/.exec(body.slice(body.lastIndexOf('Request ')))?.[1] ?? '?'}.`, Math.ceil(body.length / 4)) })
            }
        }));
    const { fake, app } = session;
    let page: Page;
    let chat: ChatPage;

    before(() => ({ page, chat } = session));

    const chatsDir = () => join(app.workspace, '.qodeassist', 'chats');
    const chatFiles = () => readdirSync(chatsDir()).filter(name => name.endsWith('.json'));
    const summaryRequests = () => fake.requests.filter(request => request.method === 'POST' && request.body.includes(SUMMARY_PROMPT));
    const messageCount = () => page.locator('.qa-chat .qa-message').count();
    async function until<T>(what: string, find: () => T | undefined): Promise<T> {
        for (let i = 0; i < 400; i++) {
            const found = find();
            if (found !== undefined) {
                return found;
            }
            await page.waitForTimeout(50);
        }
        throw new Error(`Timed out waiting for ${what}`);
    }
    /** The summary request that arrives after `count` earlier ones. */
    const summaryRequest = (count: number): Promise<RecordedRequest> => until('the summary request', () => summaryRequests()[count]);

    it('shows "Summarizing…" with Stop; Stop cancels the summary request and leaves the chat as it was, a failed summary says why', async () => {
        for (const turn of [1, 2]) {
            await chat.send(longRequest(turn));
            await chat.waitForLastAnswer('done');
        }
        const messages = await messageCount();
        const files = chatFiles();
        assert.equal(files.length, 1);
        // The save after the second answer is written a moment after it shows (a save while it streamed may come first).
        const saved = await until('the second answer saved', () => {
            const text = readFileSync(join(chatsDir(), files[0]), 'utf8');
            const history = (JSON.parse(text) as { history: Array<{ blocks: unknown[] }> }).history;
            return history.length === 4 && JSON.stringify(history[3].blocks).includes('Answer 2.') ? text : undefined;
        });

        summaryMode = 'hang';
        await page.locator('.qa-chat button[data-action=summarize]').click();
        const status = page.locator('.qa-chat .qa-summarizing');
        await status.waitFor({ timeout: 10_000 });
        assert.match(await status.textContent() ?? '', /Summarizing the chat…/);
        assert.equal(await page.locator('.qa-chat .qa-toolbar button[data-action=stop-summary]').getAttribute('aria-label'), 'Stop summarizing', 'the summarize control turned into Stop');
        assert.equal(await page.locator('.qa-chat button.qa-send').isDisabled(), true, 'nothing is sent while the summary is made');
        const hung = await summaryRequest(0);
        await page.screenshot({ path: screenshotPath('chat-summarizing') });

        await status.locator('button[data-action=stop-summarizing]').click();
        await status.waitFor({ state: 'detached', timeout: 10_000 });
        assert.equal(await hung.ended, 'aborted-by-client', 'the summary request itself was cancelled');
        assert.equal(await page.locator('.qa-chat .qa-notice').count(), 0, 'a stop is not a failure');
        assert.equal(await page.locator('.qa-chat .qa-summary-note').count(), 0);
        assert.equal(await messageCount(), messages, 'the chat shows what it showed');
        assert.deepEqual(chatFiles(), files, 'no summary chat was made');
        assert.equal(readFileSync(join(chatsDir(), files[0]), 'utf8'), saved, 'the chat file was not written');

        summaryMode = 'fail';
        await page.locator('.qa-chat button[data-action=summarize]').click();
        const notice = page.locator('.qa-chat .qa-notice', { hasText: 'Summarizing failed' });
        await notice.waitFor({ timeout: 20_000 });
        assert.match(await notice.textContent() ?? '', /The summary model is overloaded/);
        await page.screenshot({ path: screenshotPath('chat-summarize-failed') });
        assert.deepEqual([await messageCount(), chatFiles()], [messages, files]);
        await notice.locator('button').click();
    });

    it('summarizes by itself before the send that would fill the context: the view says so, keeps the last turn, and the answer arrives', async () => {
        const original = chatFiles()[0];
        summaryMode = 'slow';
        let compressedAt: number | undefined;
        for (let turn = 3; turn <= 7 && compressedAt === undefined; turn++) {
            const summaries = summaryRequests().length;
            const answers = await page.locator('.qa-chat .qa-message[data-role=assistant]').count();
            await chat.send(longRequest(turn));
            // Either the answer comes into this chat, or a summary is made first.
            await page.waitForFunction(([count]) => document.querySelector('.qa-chat .qa-summarizing') !== null
                || document.querySelectorAll('.qa-chat .qa-message[data-role=assistant]').length > count, [answers] as const, { timeout: 20_000 });
            if (summaryRequests().length > summaries || await page.locator('.qa-chat .qa-summarizing').count() > 0) {
                compressedAt = turn;
                await page.screenshot({ path: screenshotPath('chat-auto-compressing') });
            }
            await page.waitForFunction(text => {
                const answers = document.querySelectorAll('.qa-chat .qa-message[data-role=assistant]');
                const last = answers[answers.length - 1];
                return last?.getAttribute('data-status') === 'done' && last.textContent?.includes(text);
            }, `Answer ${turn}.`, { timeout: 30_000 });
        }
        assert.ok(compressedAt !== undefined && compressedAt >= 3, `auto-compression happened (at turn ${compressedAt})`);

        await page.locator('.qa-chat .qa-summary-note').waitFor({ timeout: 10_000 });
        assert.match(await page.locator('.qa-chat .qa-notice').textContent() ?? '', /so it was summarized into this new chat first/);
        const roles = await page.locator('.qa-chat .qa-message').evaluateAll(elements => elements.map(element => element.getAttribute('data-role')));
        assert.deepEqual(roles, ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'], 'summary, its acknowledgement, the kept turn, the new turn');
        const shown = await page.locator('.qa-chat .qa-message[data-role=user]').allTextContents();
        assert.match(shown[0], /Summary of the conversation so far:\s+The user works on a parser in several long steps\./);
        assert.match(shown[1], new RegExp(`Request ${compressedAt! - 1}: step`), 'the turn before is kept as it was');
        assert.match(shown[2], new RegExp(`Request ${compressedAt}: step`));
        await page.screenshot({ path: screenshotPath('chat-auto-compressed') });

        const sent = JSON.parse(fake.lastModelRequest()!.body).messages as Array<{ role: string; content: unknown }>;
        assert.deepEqual(sent.map(message => message.role), ['system', 'user', 'assistant', 'user', 'assistant', 'user']);
        assert.match(JSON.stringify(sent[1].content), /Summary of the conversation so far/);
        assert.doesNotMatch(JSON.stringify(sent), /Request 1:/, 'the oldest turn went into the summary');
        const files = chatFiles();
        assert.equal(files.length, 2, 'the original chat is kept beside the summary');
        const kept = JSON.parse(readFileSync(join(chatsDir(), original), 'utf8')) as { history: unknown[] };
        assert.equal(kept.history.length, 2 * (compressedAt! - 1), 'the original keeps every message it had');
    });
});
