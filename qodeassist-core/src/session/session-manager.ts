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
    /** The agents resolved so far: a released session is pooled only while its agent is still the current one. */
    private readonly resolved = new Map<string, SessionAgent>();

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
        return new Session(randomUUID(), await this.agent(agentName), this.services, listener);
    }

    /**
     * The agent as this manager's sessions get it: resolved once (configuration, template, key)
     * and the same object until `clear`, so a session holding another one is out of date.
     */
    agent(agentName: string): Promise<SessionAgent> {
        let agent = this.agents.get(agentName);
        if (!agent) {
            const resolving = this.resolve(agentName);
            resolving.then(agent => {
                if (this.agents.get(agentName) === resolving) {
                    this.resolved.set(agentName, agent);
                }
            }, () => {
                if (this.agents.get(agentName) === resolving) {
                    this.agents.delete(agentName);
                }
            });
            this.agents.set(agentName, resolving);
            agent = resolving;
        }
        return agent;
    }

    /** Cancels what the session is doing, empties it and keeps it for the next acquire of its agent. */
    async release(session: Session): Promise<void> {
        await session.cancel();
        session.reset();
        session.listen(() => undefined);
        const pool = this.idle.get(session.agent.name) ?? [];
        if (pool.length < this.poolSize && this.resolved.get(session.agent.name) === session.agent) {
            pool.push(session);
            this.idle.set(session.agent.name, pool);
        }
    }

    /** Forgets every resolved agent and pooled session, e.g. after the configuration changed. */
    clear(): void {
        this.idle.clear();
        this.agents.clear();
        this.resolved.clear();
    }

    /** Pooled sessions per agent, for tests and diagnostics. */
    pooled(agentName: string): number {
        return this.idle.get(agentName)?.length ?? 0;
    }
}
