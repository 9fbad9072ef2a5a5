import * as assert from 'node:assert/strict';
import { ContentLoader } from '../context/content-loader';
import { ContextAssembler } from '../context/context-assembler';
import { TokenEstimator } from '../context/token-estimator';
import { QodeAssistError } from '../wire/error-info';
import { WIRE_PROTOCOLS } from '../wire/wire-protocols';
import { SessionAgent, SessionServices } from './session';
import { SessionManager } from './session-manager';

/** A resolver whose every call is a promise the test settles: resolved with a fresh agent object, or rejected. */
class ControlledResolver {
    readonly calls: Array<{ name: string; resolve: () => SessionAgent; reject: (error: Error) => void }> = [];

    readonly resolve = (name: string): Promise<SessionAgent> => new Promise((resolve, reject) => {
        const call = {
            name,
            resolve: () => {
                const agent = agentNamed(name, this.calls.indexOf(call) + 1);
                resolve(agent);
                return agent;
            },
            reject
        };
        this.calls.push(call);
    });
}

/** An agent object; `generation` tells apart the objects resolved for one name. */
function agentNamed(name: string, generation = 1): SessionAgent {
    return {
        name, model: `model-${generation}`, protocol: WIRE_PROTOCOLS['openai-chat'], url: 'http://127.0.0.1:9/v1/chat/completions', headers: {}, secrets: [],
        contextWindow: 32_000, maxOutputTokens: 1_000, systemPrompt: 'You help.',
        renderBody: () => ({ model: `model-${generation}`, stream: true, messages: [] })
    };
}

function services(): SessionServices {
    const estimator = new TokenEstimator();
    return { assembler: new ContextAssembler(estimator, new ContentLoader()), estimator };
}

const ignore = () => undefined;

describe('SessionManager: the agent, resolved once until clear', () => {
    it('resolves an agent once: agent() and acquire() get the same object, concurrent callers share the one resolve', async () => {
        let calls = 0;
        const manager = new SessionManager(async name => { calls++; return agentNamed(name, calls); }, services());
        const [first, second] = await Promise.all([manager.agent('chat'), manager.agent('chat')]);
        const session = await manager.acquire('chat', ignore);
        assert.equal(first, second);
        assert.equal(session.agent, first);
        assert.equal(calls, 1);
    });

    it('resolves each name apart', async () => {
        const manager = new SessionManager(async name => agentNamed(name), services());
        const [chat, refactor] = await Promise.all([manager.agent('chat'), manager.agent('refactor')]);
        assert.deepEqual([chat.name, refactor.name], ['chat', 'refactor']);
    });

    it('pools a released session while its agent is current, and hands it out again', async () => {
        const manager = new SessionManager(async name => agentNamed(name), services());
        const session = await manager.acquire('chat', ignore);
        await manager.release(session);
        assert.equal(manager.pooled('chat'), 1);
        assert.equal(await manager.acquire('chat', ignore), session);
        assert.equal(manager.pooled('chat'), 0);
    });

    it('after clear, agent() resolves again into a new object', async () => {
        let calls = 0;
        const manager = new SessionManager(async name => { calls++; return agentNamed(name, calls); }, services());
        const before = await manager.agent('chat');
        manager.clear();
        const after = await manager.agent('chat');
        assert.notEqual(after, before);
        assert.equal(after.model, 'model-2');
        assert.equal(calls, 2);
    });

    it('after clear, a session released with the old agent is not pooled, and acquire gets a new session with the new agent', async () => {
        let calls = 0;
        const manager = new SessionManager(async name => { calls++; return agentNamed(name, calls); }, services());
        const old = await manager.acquire('chat', ignore);
        manager.clear();
        const current = await manager.agent('chat');
        await manager.release(old);
        assert.equal(manager.pooled('chat'), 0);
        const next = await manager.acquire('chat', ignore);
        assert.notEqual(next, old);
        assert.equal(next.agent, current);
        assert.equal(next.agent.model, 'model-2');
    });

    it('after clear, a session released before anything resolved again is not pooled either', async () => {
        const manager = new SessionManager(async name => agentNamed(name), services());
        const old = await manager.acquire('chat', ignore);
        manager.clear();
        await manager.release(old);
        assert.equal(manager.pooled('chat'), 0);
        assert.notEqual(await manager.acquire('chat', ignore), old);
    });

    it('clear empties the pool', async () => {
        const manager = new SessionManager(async name => agentNamed(name), services());
        await manager.release(await manager.acquire('chat', ignore));
        manager.clear();
        assert.equal(manager.pooled('chat'), 0);
    });

    it('does not cache a failed resolve: the next call resolves again and succeeds', async () => {
        let calls = 0;
        const manager = new SessionManager(async name => {
            calls++;
            if (calls === 1) {
                throw new QodeAssistError({ category: 'Auth', message: 'no key yet' });
            }
            return agentNamed(name, calls);
        }, services());
        await assert.rejects(manager.agent('chat'), /no key yet/);
        const agent = await manager.agent('chat');
        assert.equal(agent.model, 'model-2');
        assert.equal(calls, 2);
    });

    it('an acquire after a failed resolve resolves again instead of repeating the failure', async () => {
        const resolver = new ControlledResolver();
        const manager = new SessionManager(resolver.resolve, services());
        const failing = manager.agent('chat');
        resolver.calls[0].reject(new QodeAssistError({ category: 'Auth', message: 'no key yet' }));
        await assert.rejects(failing, /no key yet/);
        const acquiring = manager.acquire('chat', ignore);
        await Promise.resolve();
        assert.equal(resolver.calls.length, 2);
        const agent = resolver.calls[1].resolve();
        assert.equal((await acquiring).agent, agent);
    });

    it('a resolve still under way at clear does not become current: the next call resolves again', async () => {
        const resolver = new ControlledResolver();
        const manager = new SessionManager(resolver.resolve, services());
        const stale = manager.agent('chat');
        manager.clear();
        const staleAgent = resolver.calls[0].resolve();
        assert.equal(await stale, staleAgent, 'the caller before clear still gets its answer');
        const fresh = manager.agent('chat');
        assert.equal(resolver.calls.length, 2);
        const freshAgent = resolver.calls[1].resolve();
        assert.equal(await fresh, freshAgent);
        const session = await manager.acquire('chat', ignore);
        assert.equal(session.agent, freshAgent);
    });

    it('a session made from a resolve that was under way at clear is not pooled', async () => {
        const resolver = new ControlledResolver();
        const manager = new SessionManager(resolver.resolve, services());
        const acquiring = manager.acquire('chat', ignore);
        await Promise.resolve();
        manager.clear();
        resolver.calls[0].resolve();
        const stale = await acquiring;
        await manager.release(stale);
        assert.equal(manager.pooled('chat'), 0);
    });

    it('a stale resolve that fails after clear does not drop the newer one', async () => {
        const resolver = new ControlledResolver();
        const manager = new SessionManager(resolver.resolve, services());
        const stale = manager.agent('chat');
        manager.clear();
        const fresh = manager.agent('chat');
        const freshAgent = resolver.calls[1].resolve();
        resolver.calls[0].reject(new Error('stale failure'));
        await assert.rejects(stale, /stale failure/);
        const again = manager.agent('chat');
        assert.equal(resolver.calls.length, 2, 'no third resolve');
        assert.equal(await again, freshAgent);
        assert.equal(await fresh, freshAgent);
    });

    it('keeps at most poolSize idle sessions per agent', async () => {
        const manager = new SessionManager(async name => agentNamed(name), services(), 2);
        const sessions = await Promise.all([1, 2, 3].map(() => manager.acquire('chat', ignore)));
        for (const session of sessions) {
            await manager.release(session);
        }
        assert.equal(manager.pooled('chat'), 2);
    });
});
