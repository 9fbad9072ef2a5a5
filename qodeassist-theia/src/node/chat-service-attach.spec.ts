import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { ConfigurationService, EnvironmentSecretsStore, QodeAssistRuntime } from '@qodeassist/core';
import { ConfigFixture, FAKE_KEYS, FakeProviderServer, writeFakeAgents } from '@qodeassist/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QodeAssistChatClient } from '../common/chat-protocol';
import { ImagesNotTaken } from '../common/images-not-taken';
import { QodeAssistChatServiceImpl } from './chat-service-impl';

const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');

describe('QodeAssistChatServiceImpl.attach: an image for an agent that takes none', () => {
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    const client: QodeAssistChatClient = {
        onSessionEvents: () => undefined, requestToolPermission: async () => 'deny', getDiagnostics: async () => [],
        readOpenDocument: async () => undefined, writeDocument: async () => undefined, onChatNotice: () => undefined,
        requestAgentPermission: async () => ({ cancelled: true })
    };
    let home: string;
    let configuration: ConfigurationService;
    let service: QodeAssistChatServiceImpl;

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url, 'fake-openai');
        fixture.project_('agents/fake-text.toml', 'schema_version = 1\nname = "fake-text"\nextends = "fake-openai"\n\n[body]\nmessages = "{% include \'openai/text-messages.njk\' %}"\n');
        fixture.project_('agents/rosters.toml', 'schema_version = 1\n[chat]\nagents = ["fake-text", "fake-openai"]\n');
        configuration = new ConfigurationService(fixture.roots);
    });
    after(async () => {
        configuration.dispose();
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => {
        home = mkdtempSync(join(tmpdir(), 'qodeassist-attach-'));
        service = new QodeAssistChatServiceImpl(new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS), userHome: home }), { forWorkspace: () => configuration }, home);
        service.setClient(client);
    });
    afterEach(async () => {
        await service.saved();
        service.dispose();
        rmSync(home, { recursive: true, force: true });
    });

    it('is refused as ImagesNotTaken, whose data names the roster\'s agent and those that take images (what the composer offers)', async () => {
        const { chatId } = await service.openSession({ location: 'user' });
        await assert.rejects(service.attach(chatId, 'shot.png', 'image/png', PNG, {}), (error: Error) => {
            assert.ok(ImagesNotTaken.is(error));
            assert.deepEqual(error.data, { agent: 'fake-text', imageAgents: ['fake-openai'] });
            assert.match(error.message, /^fake-text takes no images/);
            return true;
        });
        const ref = await service.attach(chatId, 'shot.png', 'image/png', PNG, { agent: 'fake-openai' });
        assert.equal(ref.name, 'shot.png');
    });
});
