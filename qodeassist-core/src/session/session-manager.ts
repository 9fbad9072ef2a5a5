import { randomUUID } from 'node:crypto';
import { Session, SessionAgent, SessionServices } from './session';
import { SessionEvent } from './session-events';

/** Resolves an agent name to a ready SessionAgent: configuration, provider, compiled template, key read. */
export type SessionAgentResolver = (agentName: string) => Promise<SessionAgent>;

/**
 * Hands out sessions per agent from a small pool. The expensive part — resolving the
 * agent, its provider, its compiled template and its key — happens once per pooled
 * session; an acquired session is always empty (no history, no extra layers, no pins).
 */
export class SessionManager {
    private readonly idle = new Map<string, Session[]>();
    private readonly agents = new Map<string, Promise<SessionAgent>>();

    constructor(
        private readonly resolve: SessionAgentResolver,
        private readonly services: SessionServices,
        private readonly poolSize = 2
    ) { }

    async acquire(agentName: string, listener: (events: readonly SessionEvent[]) => void): Promise<Session> {
        const pooled = this.idle.get(agentName)?.pop();
        if (pooled) {
            pooled.listen(listener);
            return pooled;
        }
        let agent = this.agents.get(agentName);
        if (!agent) {
            agent = this.resolve(agentName);
            this.agents.set(agentName, agent);
            agent.catch(() => this.agents.delete(agentName));
        }
        return new Session(randomUUID(), await agent, this.services, listener);
    }

    /** Cancels what the session is doing, empties it and keeps it for the next acquire of its agent. */
    async release(session: Session): Promise<void> {
        await session.cancel();
        session.reset();
        session.listen(() => undefined);
        const pool = this.idle.get(session.agent.name) ?? [];
        if (pool.length < this.poolSize && this.agents.has(session.agent.name)) {
            pool.push(session);
            this.idle.set(session.agent.name, pool);
        }
    }

    /** Forgets every resolved agent and pooled session, e.g. after the configuration changed. */
    clear(): void {
        this.idle.clear();
        this.agents.clear();
    }

    /** Pooled sessions per agent, for tests and diagnostics. */
    pooled(agentName: string): number {
        return this.idle.get(agentName)?.length ?? 0;
    }
}
