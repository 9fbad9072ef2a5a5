import * as assert from 'node:assert/strict';
import { EnvironmentSecretsStore, prepareAgentTarget, Session, SessionEvent, SessionTarget } from '@qodeassist/core';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_AGENTS, FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';

describe('Session over configured agents and the fake provider', () => {
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    const secrets = new EnvironmentSecretsStore(FAKE_KEYS);
    let events: SessionEvent[];
    let session: Session;

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url);
    });
    after(async () => {
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => {
        server.reset();
        events = [];
        session = new Session('s1', batch => events.push(...batch));
    });

    async function target(agentName: string): Promise<SessionTarget> {
        const agent = fixture.load().agents.get(agentName)!;
        const prepared = await prepareAgentTarget(agent, secrets);
        return { ...prepared, systemPrompt: agent.renderSystemPrompt(), agentName: agent.name, model: agent.model };
    }

    const terminals = () => events.filter(event => ['Finished', 'Failed', 'Cancelled'].includes(event.type));
    const settle = async () => {
        while (session.busy) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
    };

    for (const fake of FAKE_AGENTS) {
        it(`${fake.protocol}: keeps a multi-turn history and sends it back in the protocol's shape`, async () => {
            const chosen = await target(fake.agent);
            const first = await session.send('hello', chosen);
            await settle();
            await session.send('and again', chosen);
            await settle();
            assert.deepEqual(events[0], { type: 'RequestStarted', requestId: first, agent: fake.agent, model: 'fake-model' });
            assert.deepEqual(terminals().map(event => event.type), ['Finished', 'Finished']);
            assert.deepEqual(session.history.map(turn => turn.text), ['hello', 'Hello! How can I help you today?', 'and again', 'Hello! How can I help you today?']);
            const second = server.requests[1].body;
            assert.equal(server.requests[1].protocol, fake.protocol);
            for (const text of ['hello', 'Hello! How can I help you today?', 'and again', 'You are QodeAssist, an expert software developer']) {
                assert.ok(second.includes(text), `${text} missing from ${second}`);
            }
        });
    }

    it('cancel ends the request with one Cancelled event and no assistant turn', async () => {
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 30 });
        await session.send('long one', await target('fake-openai'));
        while (!events.some(event => event.type === 'TextDelta')) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        await session.cancel();
        assert.deepEqual(terminals().map(event => event.type), ['Cancelled']);
        assert.equal(await server.requests[0].ended, 'aborted-by-client');
        assert.deepEqual(session.history.map(turn => turn.role), ['user']);
    });

    it('send while in flight cancels the previous request first', async () => {
        server.when({ promptIncludes: 'slow', scenario: { kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 30 } });
        const chosen = await target('fake-openai');
        const first = await session.send('slow', chosen);
        const second = await session.send('fast', chosen);
        await settle();
        assert.deepEqual(terminals().map(event => [event.type, event.requestId]), [['Cancelled', first], ['Finished', second]]);
    });

    it('a provider error becomes one Failed event, the key redacted', async () => {
        server.enqueue({ kind: 'status', status: 401, body: `{"error":{"message":"bad key ${FAKE_KEYS.FAKE_CLAUDE_API_KEY}"}}` });
        await session.send('hi', await target('fake-claude'));
        await settle();
        assert.equal(terminals().length, 1);
        assert.equal(terminals()[0].type, 'Failed');
        assert.equal(server.requests[0].headers['x-api-key'], FAKE_KEYS.FAKE_CLAUDE_API_KEY);
        assert.ok(!JSON.stringify(events).includes(FAKE_KEYS.FAKE_CLAUDE_API_KEY), 'the key appears in no event');
    });

    it('a cloud provider without a key fails before sending, naming the variable to set', async () => {
        const agent = fixture.load().agents.get('fake-gemini')!;
        await assert.rejects(prepareAgentTarget(agent, new EnvironmentSecretsStore({})), (error: Error) =>
            /Set the environment variable FAKE_GOOGLE_API_KEY/.test(error.message));
        assert.equal(server.requests.length, 0);
    });
});
