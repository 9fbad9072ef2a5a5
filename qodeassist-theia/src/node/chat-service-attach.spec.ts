import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { useFakeProviderSuite } from '@qodeassist/test';
import { QodeAssistChatClient } from '../common/chat-protocol';
import { ImagesNotTaken } from '../common/images-not-taken';
import { useChatService } from './chat-service.spec-support';

const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');

describe('QodeAssistChatServiceImpl.attach: an image for an agent that takes none', () => {
    const { configurations } = useFakeProviderSuite({
        prepare: fixture => {
            fixture.project_('agents/fake-text.toml', 'schema_version = 1\nname = "fake-text"\nextends = "fake-openai"\n\n[body]\nmessages = "{% include \'openai/text-messages.njk\' %}"\n');
            fixture.project_('agents/rosters.toml', 'schema_version = 1\n[chat]\nagents = ["fake-text", "fake-openai"]\n');
        }
    });
    const client: QodeAssistChatClient = {
        onSessionEvents: () => undefined, requestToolPermission: async () => 'deny', getDiagnostics: async () => [],
        readOpenDocument: async () => undefined, writeDocument: async () => undefined, onChatNotice: () => undefined,
        requestAgentPermission: async () => ({ cancelled: true })
    };
    const connection = useChatService(configurations, client, 'qodeassist-attach-');

    it('is refused as ImagesNotTaken, whose data names the roster\'s agent and those that take images (what the composer offers)', async () => {
        const { service } = connection;
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
