import { DisposableCollection, Emitter, Event } from '@theia/core';
import type { FrontendApplicationContribution } from '@theia/core/lib/browser';
import { Clock, ConnectionTokenRefresh, fetchPage, pageUrlOf, SYSTEM_CLOCK } from './connection-token-refresh';

/** The events of Theia's `WebSocketConnectionSource` this follows. */
export interface SocketEvents {
    readonly onSocketDidOpen: Event<void>;
    readonly onSocketDidClose: Event<void>;
    /** A new main channel: the backend is a new one (it restarted), and the RPC proxies connect to it. */
    readonly onConnectionDidOpen: Event<unknown>;
}

/** What refreshes the connection token while away (ConnectionTokenRefresh). */
export interface TokenRefresh {
    start(): void;
    stop(): void;
}

/** An open socket to the same backend carries the old channel again once Theia's reconnect handshake is done; this is how long that is given. */
export const SOCKET_SETTLE_MS = 1_000;
/** Away this long, the user is told that reloading the page may be needed. */
export const LONG_AWAY_MS = 30_000;

/**
 * Whether the IDE backend can be reached. It is away from the moment the socket closes;
 * it is back when Theia opens a new channel (a restarted backend) or when the socket has
 * stayed open SOCKET_SETTLE_MS (the same backend, whose channel goes on). While away, the
 * page is requested now and then so a restarted backend's connection token is picked up.
 */
export class BackendConnection implements FrontendApplicationContribution {
    protected isAway = false;
    protected isAwayLong = false;
    protected settleTimer: unknown;
    protected longAwayTimer: unknown;
    protected readonly changed = new Emitter<boolean>();
    protected readonly reconnected = new Emitter<void>();
    protected readonly toDispose = new DisposableCollection(this.changed, this.reconnected);

    /** Fires `away` whenever it or `awayLong` changes. */
    readonly onDidChange: Event<boolean> = this.changed.event;
    /** The backend is usable again after being away: what it holds may have changed meanwhile (a restart forgets every open chat). */
    readonly onDidReconnect: Event<void> = this.reconnected.event;

    constructor(source: SocketEvents, protected readonly tokenRefresh: TokenRefresh, protected readonly clock: Clock = SYSTEM_CLOCK) {
        this.toDispose.push(source.onSocketDidClose(() => this.left()));
        this.toDispose.push(source.onSocketDidOpen(() => this.socketOpened()));
        this.toDispose.push(source.onConnectionDidOpen(() => this.returned()));
    }

    get away(): boolean {
        return this.isAway;
    }

    /** Away for LONG_AWAY_MS and more. */
    get awayLong(): boolean {
        return this.isAwayLong;
    }

    onStop(): void {
        this.dispose();
    }

    dispose(): void {
        this.clearTimers();
        this.tokenRefresh.stop();
        this.toDispose.dispose();
    }

    protected left(): void {
        this.clock.clearTimeout(this.settleTimer);
        this.settleTimer = undefined;
        if (this.isAway) {
            return;
        }
        this.isAway = true;
        this.tokenRefresh.start();
        this.longAwayTimer = this.clock.setTimeout(() => {
            this.isAwayLong = true;
            this.changed.fire(true);
        }, LONG_AWAY_MS);
        this.changed.fire(true);
    }

    protected socketOpened(): void {
        if (this.isAway) {
            this.clock.clearTimeout(this.settleTimer);
            this.settleTimer = this.clock.setTimeout(() => this.returned(), SOCKET_SETTLE_MS);
        }
    }

    protected returned(): void {
        if (!this.isAway) {
            return;
        }
        this.clearTimers();
        this.isAway = false;
        this.isAwayLong = false;
        this.tokenRefresh.stop();
        this.changed.fire(false);
        this.reconnected.fire();
    }

    protected clearTimers(): void {
        this.clock.clearTimeout(this.settleTimer);
        this.clock.clearTimeout(this.longAwayTimer);
        this.settleTimer = undefined;
        this.longAwayTimer = undefined;
    }
}

/** The connection of this page: Theia's socket events, and the page's own URL for the token refresh. */
export function createBackendConnection(source: SocketEvents): BackendConnection {
    return new BackendConnection(source, new ConnectionTokenRefresh(pageUrlOf(window.location), fetchPage, SYSTEM_CLOCK));
}
