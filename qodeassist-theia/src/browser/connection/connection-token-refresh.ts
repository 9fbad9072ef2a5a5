/** Time as the connection tracking needs it; the specs pass a clock they move by hand. */
export interface Clock {
    now(): number;
    setTimeout(run: () => void, ms: number): unknown;
    clearTimeout(handle: unknown): void;
}

export const SYSTEM_CLOCK: Clock = {
    now: () => Date.now(),
    setTimeout: (run, ms) => setTimeout(run, ms),
    clearTimeout: handle => clearTimeout(handle as ReturnType<typeof setTimeout>)
};

/** Requests a URL of this origin; resolves or rejects, the answer does not matter. */
export type PageRequest = (url: string) => Promise<unknown>;

/** The first minute of being away, the page is requested this often; then every LATER_MS (socket.io's longest retry delay). */
const FIRST_MS = 2_000;
const LATER_MS = 10_000;
const FIRST_PHASE_MS = 60_000;

/** The page a request refreshes the connection token with: the page's own URL without its hash; none outside http(s) (Electron's file:// page has no token). */
export function pageUrlOf(location: { protocol: string; href: string }): string | undefined {
    if (location.protocol !== 'http:' && location.protocol !== 'https:') {
        return undefined;
    }
    const url = new URL(location.href);
    url.hash = '';
    return url.toString();
}

/** How long to wait before the next request, after being away `awayForMs`. */
export function refreshDelayMs(awayForMs: number): number {
    return awayForMs < FIRST_PHASE_MS ? FIRST_MS : LATER_MS;
}

/** What a refresh request is: a page request as a reload makes it, minus the reload. */
export const fetchPage: PageRequest = url => fetch(url, { method: 'HEAD', cache: 'no-store', credentials: 'same-origin' });

/**
 * Keeps requesting the page while the backend is away. A restarted Theia backend accepts only
 * its new `theia-connection-token` cookie, which it sets on any page request (never on the
 * socket.io handshake): without such a request socket.io's retries are rejected forever.
 * One request at a time, every FIRST_MS, later every LATER_MS, until `stop`.
 */
export class ConnectionTokenRefresh {
    protected timer: unknown;
    protected startedAt = 0;
    /** Goes up at every start and stop, so a request that answers after a stop schedules nothing. */
    protected generation = 0;
    protected active = false;

    constructor(protected readonly url: string | undefined, protected readonly request: PageRequest, protected readonly clock: Clock) { }

    get running(): boolean {
        return this.active;
    }

    start(): void {
        if (this.active || !this.url) {
            return;
        }
        this.active = true;
        this.generation++;
        this.startedAt = this.clock.now();
        this.schedule();
    }

    stop(): void {
        this.active = false;
        this.generation++;
        this.clock.clearTimeout(this.timer);
        this.timer = undefined;
    }

    protected schedule(): void {
        const generation = this.generation;
        this.timer = this.clock.setTimeout(() => void this.refresh(generation), refreshDelayMs(this.clock.now() - this.startedAt));
    }

    protected async refresh(generation: number): Promise<void> {
        this.timer = undefined;
        // A backend still down fails the request: the next one is scheduled all the same.
        await this.request(this.url!).catch(() => undefined);
        if (generation === this.generation) {
            this.schedule();
        }
    }
}
