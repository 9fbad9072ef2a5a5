import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { ChatTurnOptions, ConfigurationService } from '@qodeassist/core';
import { openAITextRecording } from '../fake-provider/recordings';
import { useChatHarness } from './chat-harness';

/** The repository's rules files in the chat's requests: trusted workspaces only, read again at every send. */
describe('rules files in the chat over the fake provider', () => {
    const chat = useChatHarness({
        // The agents in the user layer: an untrusted workspace still has them.
        homePrefix: 'qodeassist-chat-rules-', layer: 'user',
        prepare: fixture => {
            fixture.write(join(fixture.workspace, 'AGENTS.md'), 'RULE-ROOT: use tabs.\n');
            fixture.write(join(fixture.workspace, 'CLAUDE.md'), 'RULE-CLAUDE: run the tests.\n');
            fixture.write(join(fixture.workspace, 'src', 'api', 'AGENTS.md'), 'RULE-API: validate with zod.\n');
            fixture.write(join(fixture.workspace, 'src', 'api', 'users.ts'), 'export const users = [];\n');
            fixture.write(join(fixture.workspace, 'docs', 'AGENTS.md'), 'RULE-DOCS: British English.\n');
        }
    });
    const { server, fixture, storage } = chat;
    let untrusted: ConfigurationService;

    before(() => {
        untrusted = new ConfigurationService({ ...fixture.roots, project: undefined });
    });
    after(() => untrusted.dispose());

    /** A chat in a workspace with `configuration` (the harness's is trusted); `send` returns the system messages the provider received. */
    async function chatWith(configuration?: ConfigurationService): Promise<{ send(text: string, options?: ChatTurnOptions): Promise<string> }> {
        const window = chat.openWindow(configuration ? { configurations: { forWorkspace: () => configuration } } : {});
        const { chatId } = await window.feature.open(storage);
        return {
            send: async (text, options = {}) => {
                server.enqueue({ kind: 'replay', recording: openAITextRecording('Ok.') });
                assert.equal((await window.turn(chatId, text, { workspacePath: fixture.workspace, ...options })).type, 'Finished');
                return JSON.stringify(JSON.parse(server.requests.at(-1)!.body).messages.filter((message: { role: string }) => message.role === 'system'));
            }
        };
    }

    it('a trusted workspace: root files and the AGENTS.md above the file in focus go into the system prompt; an edit applies at the next send', async () => {
        const { send } = await chatWith();
        try {
            const first = await send('hello', { file: 'src/api/users.ts' });
            assert.match(first, /RULE-ROOT.*RULE-CLAUDE.*RULE-API/);
            assert.ok(!first.includes('RULE-DOCS'), 'a folder the turn does not touch is not read');
            fixture.write(join(fixture.workspace, 'AGENTS.md'), 'RULE-ROOT-EDITED: use spaces.\n');
            const second = await send('again', { file: 'src/api/users.ts' });
            assert.match(second, /RULE-ROOT-EDITED/);
            assert.ok(!second.includes('RULE-ROOT:'), 'the old text is gone');
        } finally {
            fixture.write(join(fixture.workspace, 'AGENTS.md'), 'RULE-ROOT: use tabs.\n');
        }
    });

    it('a kind turned off in the settings is not read', async () => {
        const { send } = await chatWith();
        const system = await send('hello', { file: 'src/api/users.ts', rules: { disabled: ['claude'] } });
        assert.match(system, /RULE-ROOT/);
        assert.ok(!system.includes('RULE-CLAUDE'));
    });

    it('an untrusted workspace reads none of them', async () => {
        const { send } = await chatWith(untrusted);
        const system = await send('hello', { file: 'src/api/users.ts' });
        assert.ok(!/RULE-/.test(system), system);
    });
});
