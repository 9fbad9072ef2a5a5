import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Page } from 'playwright-core';
import type { AgentScript } from '../acp/scripted-acp-agent';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';
import { ChatPage, workspaceConfiguration } from './chat-page';
import { screenshotPath } from './chromium';
import { useBrowserChat } from './e2e-session';

const SCRIPTED_AGENT = join(__dirname, '..', 'acp', 'scripted-acp-agent.js');
/** An external agent's turn: it says it works, and while it "works" the spec writes the disk as codex-acp does, never through the IDE. */
const AGENT_SCRIPT: AgentScript = {
    turns: [[
        { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Working on the disk myself.' } } },
        { sleep: 3000 },
        { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: ' Done.' } } }
    ]]
};

/** A hash of every file of the workspace (its `.git` and the chats QodeAssist saves there aside), by path. */
function workspaceHashes(root: string): Record<string, string> {
    const found: Record<string, string> = {};
    const walk = (folder: string) => {
        for (const name of readdirSync(folder)) {
            const path = join(folder, name);
            const key = relative(root, path);
            if (name === '.git' || key === join('.qodeassist', 'chats')) {
                continue;
            }
            if (lstatSync(path).isDirectory()) {
                walk(path);
            } else {
                found[key] = createHash('sha256').update(readFileSync(path)).digest('hex');
            }
        }
    };
    walk(root);
    return found;
}

/**
 * Checkpoints in the real app: an agent turn creates and edits files through its tools and runs a
 * command that writes another; "Restore to here" on the first message puts every file back byte for
 * byte (and the chat), "Undo restore" brings it all back, and the review lists the changed files with Keep and Revert.
 */
describe('checkpoints in Chromium: restore to here, undo restore, review with Keep and Revert', function () {
    this.timeout(180_000);
    const session = useBrowserChat(fake => ({
        files: {
            ...workspaceConfiguration(fake.url),
            'src/app.ts': 'export const greeting = "hello";\n',
            'src/old.txt': 'kept before the turn\n'
        },
        env: { E2E_API_KEY: 'sk-e2e-checkpoints-0123456789' },
        userFiles: {
            '.theia/settings.json': JSON.stringify({ 'qodeassist.tools.terminal.allowedCommands': ['sh'] }),
            '.qodeassist/acp/scripted.toml': ['description = "A scripted agent for tests"', `command = ${JSON.stringify(process.execPath)}`,
                `args = [${[SCRIPTED_AGENT, JSON.stringify(AGENT_SCRIPT)].map(arg => JSON.stringify(arg)).join(', ')}]`].join('\n')
        }
    }));
    const { fake, app } = session;
    let page: Page;
    let chat: ChatPage;

    before(() => ({ page, chat } = session));

    const messages = () => page.locator('.qa-chat .qa-message');
    async function until(condition: () => Promise<boolean> | boolean, what: string, ms = 30_000): Promise<void> {
        const deadline = Date.now() + ms;
        while (!await condition()) {
            if (Date.now() > deadline) {
                throw new Error(`timed out waiting for ${what}`);
            }
            await new Promise(resolve => setTimeout(resolve, 100));
        }
    }
    const same = (a: Record<string, string>, b: Record<string, string>) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

    it('restores the workspace byte for byte to before the turn, undoes the restore, and reviews the changes', async () => {
        const before = workspaceHashes(app.workspace);
        fake.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'c1', name: 'create_file', arguments: { path: 'src/nested/new.ts', content: 'export const created = true;\n' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'e1', name: 'edit_file', arguments: { path: 'src/app.ts', old_text: '"hello"', new_text: '"hello, world"' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 't1', name: 'execute_terminal_command', arguments: { command: 'sh -c \'echo x > made-by-command.txt\'' } }]) },
            { kind: 'replay', recording: openAITextRecording('Done.') }
        );
        await chat.send('change some files');
        for (const tool of ['create_file', 'edit_file', 'execute_terminal_command']) {
            const prompt = page.locator(`.qa-chat .qa-permission[data-tool=${tool}]`);
            await prompt.waitFor({ timeout: 30_000 });
            await prompt.locator('button[data-answer=allow-once]').click();
            await prompt.waitFor({ state: 'detached', timeout: 30_000 });
        }
        await chat.waitForLastAnswer('done', 60_000);
        await until(() => existsSync(join(app.workspace, 'made-by-command.txt')), 'the command\'s file');
        const after = workspaceHashes(app.workspace);
        assert.equal(readFileSync(join(app.workspace, 'src', 'app.ts'), 'utf8'), 'export const greeting = "hello, world";\n');
        assert.ok(after[join('src', 'nested', 'new.ts')]);

        // Restore to here, on the first message: asked first, with every file it would change.
        const first = messages().first();
        const restore = first.locator('button[data-action=restore-to]');
        await until(async () => {
            await first.hover();
            return restore.isVisible();
        }, 'Restore to here on the first message');
        await restore.click();
        const card = page.locator('.qa-chat .qa-restore-card');
        await card.locator('.qa-restore-files').waitFor({ timeout: 30_000 });
        const previewed = await card.locator('.qa-change').evaluateAll(rows => rows.map(row => `${row.getAttribute('data-kind')} ${row.getAttribute('data-path')}`).sort());
        assert.deepEqual(previewed, ['deleted made-by-command.txt', 'deleted src/nested/new.ts', 'modified src/app.ts']);
        await card.locator('.qa-change[data-path="src/app.ts"] summary').click();
        await page.screenshot({ path: screenshotPath('checkpoints-restore-preview') });
        await card.locator('button[data-action=confirm-restore]').click();
        await page.locator('.qa-chat .qa-restored').waitFor({ timeout: 30_000 });

        assert.ok(same(workspaceHashes(app.workspace), before), JSON.stringify({ now: workspaceHashes(app.workspace), before }));
        assert.equal(existsSync(join(app.workspace, 'src', 'nested')), false);
        await until(async () => await messages().count() === 0, 'the chat back to before the first message');
        await page.screenshot({ path: screenshotPath('checkpoints-restored') });

        // Undo restore: the files and the chat as they were just before it.
        await page.locator('.qa-chat .qa-restored button[data-action=undo-restore]').click();
        await page.locator('.qa-chat .qa-restored').waitFor({ state: 'detached', timeout: 30_000 });
        assert.ok(same(workspaceHashes(app.workspace), after), JSON.stringify({ now: workspaceHashes(app.workspace), after }));
        await until(async () => await messages().count() === 2, 'the chat brought back');

        // The review: what the chat changed, each file with Keep and Revert.
        await page.locator('.qa-chat button[data-action=review-changes]').click();
        const review = page.locator('.qa-chat .qa-review');
        await until(async () => await review.locator('.qa-change').count() === 3, 'the review\'s files');
        const reviewed = await review.locator('.qa-change').evaluateAll(rows => rows.map(row => `${row.getAttribute('data-kind')} ${row.getAttribute('data-path')}`).sort());
        assert.deepEqual(reviewed, ['added made-by-command.txt', 'added src/nested/new.ts', 'modified src/app.ts']);
        assert.equal(await review.locator('button[data-action=keep]').count(), 3);
        await review.locator('.qa-change[data-path="src/app.ts"] summary .qa-change-path').click();
        await page.screenshot({ path: screenshotPath('checkpoints-review') });
        await review.locator('.qa-change[data-path="src/app.ts"] button[data-action=revert]').click();
        await until(() => readFileSync(join(app.workspace, 'src', 'app.ts'), 'utf8') === 'export const greeting = "hello";\n', 'app.ts reverted');
        await review.locator('.qa-change[data-path="made-by-command.txt"] button[data-action=keep]').click();
        await until(async () => await review.locator('.qa-change').count() === 1, 'kept and reverted files leaving the review');
        assert.equal(await review.locator('.qa-change').getAttribute('data-path'), 'src/nested/new.ts');
        assert.equal(readFileSync(join(app.workspace, 'made-by-command.txt'), 'utf8'), 'x\n', 'Keep changes nothing on disk');
    });

    it('shows what an external agent wrote on disk by itself during its turn, with its diff and Revert', async () => {
        const picker = page.locator('.qa-chat .qa-agent-picker');
        await picker.focus();
        await page.locator('.qa-chat .qa-agent-picker option[value="acp:scripted"]').waitFor({ state: 'attached', timeout: 20_000 });
        await picker.selectOption('acp:scripted');
        await chat.send('write it yourself');
        await until(async () => /Working on the disk myself/.test(await chat.lastAnswer().textContent() ?? ''), 'the agent at work');
        writeFileSync(join(app.workspace, 'src', 'by-agent.ts'), 'export const byAgent = 1;\n');
        writeFileSync(join(app.workspace, 'src', 'old.txt'), 'rewritten by the agent\n');
        await chat.waitForLastAnswer('done', 30_000);

        const changes = chat.lastAnswer().locator('.qa-disk-changes');
        await until(async () => await changes.locator('.qa-change').count() === 2, 'the files the agent changed on disk');
        const listed = await changes.locator('.qa-change').evaluateAll(rows => rows.map(row => `${row.getAttribute('data-kind')} ${row.getAttribute('data-path')}`).sort());
        assert.deepEqual(listed, ['added src/by-agent.ts', 'modified src/old.txt']);
        await changes.locator('.qa-change[data-path="src/old.txt"] summary .qa-change-path').click();
        assert.match(await changes.locator('.qa-change[data-path="src/old.txt"] .qa-diff').textContent() ?? '', /-kept before the turn\+rewritten by the agent/);
        // The review open since the first test follows: the agent's files are among what the chat changed.
        const review = page.locator('.qa-chat .qa-review');
        await until(async () => await review.locator('.qa-change[data-path="src/by-agent.ts"]').count() === 1, 'the review to list the agent\'s file', 10_000);
        await page.screenshot({ path: screenshotPath('checkpoints-agent-disk-changes') });

        await changes.locator('.qa-change[data-path="src/by-agent.ts"] button[data-action=revert]').click();
        await until(() => !existsSync(join(app.workspace, 'src', 'by-agent.ts')), 'the agent\'s file reverted');
        await changes.locator('.qa-change[data-path="src/old.txt"] button[data-action=revert]').click();
        await until(() => readFileSync(join(app.workspace, 'src', 'old.txt'), 'utf8') === 'kept before the turn\n', 'the agent\'s edit reverted');
    });
});
