import { RequestId } from '../wire/events';
import { AcpAgentError } from './acp-errors';

/** How often a running turn checks whether the agent went quiet. */
const IDLE_CHECK_MS = 1_000;

/** What a turn asks of its client to tell whether the agent is quiet while QodeAssist waits on it. */
export interface AgentActivity {
    /** When the agent last sent anything, or the host last answered it (ms since the epoch). */
    lastActivityAt(): number;
    /** Whether the host is busy with one of the agent's requests (the user deciding a prompt, a command running). */
    hostBusy(): boolean;
}

/**
 * One prompt turn's own state: its request id, the user's cancel, a failure raised from outside
 * the request (a bound crossed, the agent gone quiet or dead), and the count of updates.
 */
export class Turn {
    readonly cancel = new AbortController();
    /** Rejects with the first failure; never resolves. */
    readonly failure: Promise<never>;
    updates = 0;
    private rejectFailure!: (error: AcpAgentError) => void;
    private failedWith: AcpAgentError | undefined;
    private readonly idleTimer: NodeJS.Timeout | undefined;
    private ended = false;

    constructor(readonly requestId: RequestId, activity: AgentActivity, idleMs: number, onIdle: () => AcpAgentError) {
        this.failure = new Promise<never>((_resolve, reject) => { this.rejectFailure = reject; });
        this.failure.catch(() => undefined);
        const startedAt = Date.now();
        this.idleTimer = setInterval(() => {
            const quietSince = Math.max(startedAt, activity.lastActivityAt());
            if (!activity.hostBusy() && Date.now() - quietSince > idleMs) {
                this.fail(onIdle());
            }
        }, Math.min(IDLE_CHECK_MS, Math.max(50, idleMs / 4)));
        this.idleTimer.unref?.();
    }

    get active(): boolean {
        return !this.ended;
    }

    get error(): AcpAgentError | undefined {
        return this.failedWith;
    }

    fail(error: AcpAgentError): void {
        if (this.failedWith || this.ended) {
            return;
        }
        this.failedWith = error;
        this.rejectFailure(error);
    }

    end(): void {
        this.ended = true;
        clearInterval(this.idleTimer);
    }
}
