import * as assert from 'node:assert/strict';
import { RpcProxyFactory } from '@theia/core/lib/common/messaging/proxy-factory';
import { AgentChoice } from '../../common/chat-protocol';
import { ImagesNotTaken } from '../../common/images-not-taken';
import { holdImage, imagesNotTakenOf, localImageRefusal, noticeForAttached, noticeText } from './chat-image-notice';

/** Theia's own serialization of an error thrown by a backend service, as the browser's proxy receives it. */
class ErrorsOverRpc extends RpcProxyFactory<object> {
    roundTrip(error: Error): Error {
        return this.deserializeError(new Error('captured'), this.serializeError(error));
    }
}

const choice = (name: string, images: boolean): AgentChoice => ({ name, model: 'm', provider: 'p', inRoster: true, images });
const AGENTS = [choice('ollama-chat', true), choice('deepseek-chat', false), choice('claude-chat', true)];
const png = (name: string) => ({ name, mediaType: 'image/png', bytes: new Uint8Array([137, 80, 78, 71]) });

describe('chat image notice: images follow the agent', () => {
    it('refuses an image for the picker\'s agent that takes none before anything is uploaded, naming the agents that do', () => {
        const refusal = localImageRefusal(AGENTS, 'deepseek-chat', 'shot.png', 'image/png');
        assert.deepEqual(imagesNotTakenOf(refusal), { agent: 'deepseek-chat', imageAgents: ['ollama-chat', 'claude-chat'] });
        assert.equal(localImageRefusal(AGENTS, 'deepseek-chat', 'notes.md', 'text/markdown'), undefined, 'text goes to any agent');
        assert.equal(localImageRefusal(AGENTS, 'claude-chat', 'shot.png', 'image/png'), undefined);
        assert.equal(localImageRefusal(AGENTS, '', 'shot.png', 'image/png'), undefined, 'Auto: the backend knows the roster\'s agent');
    });

    it('knows the backend\'s refusal by its data after the RPC, not by its text', () => {
        const rpc = new ErrorsOverRpc();
        const received = rpc.roundTrip(ImagesNotTaken('deepseek-chat takes no images', { agent: 'deepseek-chat', imageAgents: ['claude-chat'] }));
        assert.deepEqual(imagesNotTakenOf(received), { agent: 'deepseek-chat', imageAgents: ['claude-chat'] });
        assert.equal(imagesNotTakenOf(rpc.roundTrip(new Error('deepseek-chat takes no images'))), undefined);
    });

    it('holds refused images together and says what was not attached and what to switch to', () => {
        const data = { agent: 'deepseek-chat', imageAgents: ['ollama-chat', 'claude-chat'] };
        const notice = holdImage(holdImage(undefined, data, png('a.png')), data, png('b.png'));
        assert.deepEqual(notice.held.map(image => image.name), ['a.png', 'b.png']);
        assert.equal(noticeText(notice), 'deepseek-chat takes no images (its request template sends text only), so "a.png", "b.png" were not attached. '
            + 'Switch to an agent that takes images to attach them:');
        assert.deepEqual(holdImage(notice, { agent: 'llamacpp-chat', imageAgents: [] }, png('c.png')).held.map(image => image.name), ['c.png'], 'another agent: a new notice');
    });

    it('after switching to an agent that takes none, images already attached are said to be unable to go', () => {
        const notice = noticeForAttached(AGENTS, 'deepseek-chat', ['shot.png']);
        assert.deepEqual(notice, { agent: 'deepseek-chat', imageAgents: ['ollama-chat', 'claude-chat'], held: [], attached: ['shot.png'] });
        assert.equal(noticeText(notice!), 'deepseek-chat takes no images (its request template sends text only), so "shot.png" cannot go with the next message. '
            + 'Switch to an agent that takes images, or remove the image:');
        assert.equal(noticeForAttached(AGENTS, 'claude-chat', ['shot.png']), undefined);
        assert.equal(noticeForAttached(AGENTS, 'deepseek-chat', []), undefined);
    });
});
