import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatEvent, ChatFeature, ChatStorage, ConfigurationService, EnvironmentSecretsStore, QodeAssistRuntime } from '@qodeassist/core';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording } from '../fake-provider/recordings';

/** The repository's rules files in the chat's requests: trusted workspaces only, read again at every send. */
describe('rules files in the chat over the fake provider', () => {
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    const storage: ChatStorage = { location: 'user' };
    let home: string;
    let runtime: QodeAssistRuntime;
    let trusted: ConfigurationService;
    let untrusted: ConfigurationService;
    const ended: string[] = [];

    before(async () => {
        await server.start();
        // The agents in the user layer: an untrusted workspace still has them.
        writeFakeAgents(fixture, server.url, 'fake-openai', 'user');
        fixture.write(join(fixture.workspace, 'AGENTS.md'), 'RULE-ROOT: use tabs.\n');
        fixture.write(join(fixture.workspace, 'CLAUDE.md'), 'RULE-CLAUDE: run the tests.\n');
        fixture.write(join(fixture.workspace, 'src', 'api', 'AGENTS.md'), 'RULE-API: validate with zod.\n');
        fixture.write(join(fixture.workspace, 'src', 'api', 'users.ts'), 'export const users = [];\n');
        fixture.write(join(fixture.workspace, 'docs', 'AGENTS.md'), 'RULE-DOCS: British English.\n');
        trusted = new ConfigurationService(fixture.roots);
        untrusted = new ConfigurationService({ ...fixture.roots, project: undefined });
    });
    after(async () => {
        trusted.dispose();
        untrusted.dispose();
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => {
        server.reset();
        ended.length = 0;
        home = mkdtempSync(join(tmpdir(), 'qodeassist-chat-rules-'));
        runtime = new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS), userHome: home });
    });
    afterEach(() => {
        runtime.dispose();
        rmSync(home, { recursive: true, force: true });
    });

    async function chatWith(configuration: ConfigurationService): Promise<{ feature: ChatFeature; send(text: string, options?: Record<string, unknown>): Promise<string> }> {
        const feature = new ChatFeature({ runtime, configurations: { forWorkspace: () => configuration }, userHome: home });
        feature.setHost({
            onEvents: (_id, events: readonly ChatEvent[]) => events.forEach(event => ['Finished', 'Failed'].includes(event.type) && ended.push(event.type)),
            onNotice: () => undefined, requestToolPermission: async () => 'deny'
        });
        const { chatId } = await feature.open(storage);
        return {
            feature,
            send: async (text, options = {}) => {
                const count = ended.length;
                server.enqueue({ kind: 'replay', recording: openAITextRecording('Ok.') });
                await feature.send(chatId, { text, attachments: [] }, { workspacePath: fixture.workspace, ...options });
                while (ended.length === count) {
                    await new Promise(resolve => setTimeout(resolve, 5));
                }
                assert.equal(ended.at(-1), 'Finished');
                return JSON.stringify(JSON.parse(server.requests.at(-1)!.body).messages.filter((message: { role: string }) => message.role === 'system'));
            }
        };
    }

    it('a trusted workspace: root files and the AGENTS.md above the file in focus go into the system prompt; an edit applies at the next send', async () => {
        const { feature, send } = await chatWith(trusted);
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
            feature.dispose();
            await feature.saved();
        }
    });

    it('a kind turned off in the settings is not read', async () => {
        const { feature, send } = await chatWith(trusted);
        try {
            const system = await send('hello', { file: 'src/api/users.ts', rules: { disabled: ['claude'] } });
            assert.match(system, /RULE-ROOT/);
            assert.ok(!system.includes('RULE-CLAUDE'));
        } finally {
            feature.dispose();
            await feature.saved();
        }
    });

    it('an untrusted workspace reads none of them', async () => {
        const { feature, send } = await chatWith(untrusted);
        try {
            const system = await send('hello', { file: 'src/api/users.ts' });
            assert.ok(!/RULE-/.test(system), system);
        } finally {
            feature.dispose();
            await feature.saved();
        }
    });
});
