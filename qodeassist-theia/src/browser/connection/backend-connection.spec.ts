import * as assert from 'node:assert/strict';
import { Emitter } from '@theia/core';
import { BackendConnection, LONG_AWAY_MS, SOCKET_SETTLE_MS } from './backend-connection';
import { Clock, ConnectionTokenRefresh, pageUrlOf, refreshDelayMs } from './connection-token-refresh';

/** A clock the test moves by hand; timers run in time order, and what they start may settle before the next one runs. */
class ManualClock implements Clock {
    protected time = 0;
    protected nextHandle = 1;
    protected readonly timers = new Map<number, { at: number; run: () => void }>();

    now(): number {
        return this.time;
    }
    setTimeout(run: () => void, ms: number): unknown {
        const handle = this.nextHandle++;
        this.timers.set(handle, { at: this.time + ms, run });
        return handle;
    }
    clearTimeout(handle: unknown): void {
        this.timers.delete(handle as number);
    }
    get pending(): number {
        return this.timers.size;
    }
    async advance(ms: number): Promise<void> {
        const until = this.time + ms;
        for (;;) {
            const [handle, timer] = [...this.timers].filter(([, candidate]) => candidate.at <= until).sort(([, a], [, b]) => a.at - b.at)[0] ?? [];
            if (!timer) {
                break;
            }
            this.timers.delete(handle!);
            this.time = timer.at;
            timer.run();
            await new Promise(resolve => setImmediate(resolve));
        }
        this.time = until;
    }
}

/** Theia's WebSocketConnectionSource as the test drives it. */
class FakeSocket {
    readonly opened = new Emitter<void>();
    readonly closed = new Emitter<void>();
    readonly newChannel = new Emitter<unknown>();
    readonly onSocketDidOpen = this.opened.event;
    readonly onSocketDidClose = this.closed.event;
    readonly onConnectionDidOpen = this.newChannel.event;
}

function setup() {
    const socket = new FakeSocket();
    const clock = new ManualClock();
    const refresh = { running: false, start() { this.running = true; }, stop() { this.running = false; } };
    const connection = new BackendConnection(socket, refresh, clock);
    const seen: string[] = [];
    connection.onDidChange(away => seen.push(away ? (connection.awayLong ? 'away-long' : 'away') : 'back'));
    connection.onDidReconnect(() => seen.push('reconnected'));
    return { socket, clock, refresh, connection, seen };
}

describe('ConnectionTokenRefresh', () => {
    it('requests the page\'s own URL without its hash, and nothing outside http(s)', () => {
        assert.equal(pageUrlOf({ protocol: 'http:', href: 'http://localhost:3000/?folder=/w#/w/a.ts' }), 'http://localhost:3000/?folder=/w');
        assert.equal(pageUrlOf({ protocol: 'https:', href: 'https://ide.example/theia/' }), 'https://ide.example/theia/');
        assert.equal(pageUrlOf({ protocol: 'file:', href: 'file:///app/index.html' }), undefined);
    });

    it('waits 2 s between requests the first minute away, then 10 s', () => {
        assert.deepEqual([0, 59_999, 60_000, 600_000].map(refreshDelayMs), [2_000, 2_000, 10_000, 10_000]);
    });

    it('requests the page every 2 s while running, even when a request fails, and stops with stop', async () => {
        const clock = new ManualClock();
        const requested: Array<[number, string]> = [];
        const refresh = new ConnectionTokenRefresh('http://localhost:3000/', async url => {
            requested.push([clock.now(), url]);
            throw new Error('connection refused');
        }, clock);
        refresh.start();
        await clock.advance(6_000);
        assert.deepEqual(requested, [[2_000, 'http://localhost:3000/'], [4_000, 'http://localhost:3000/'], [6_000, 'http://localhost:3000/']]);
        refresh.stop();
        await clock.advance(10_000);
        assert.deepEqual([requested.length, refresh.running, clock.pending], [3, false, 0]);
    });

    it('sends one request at a time: the next waits until a slow one has answered', async () => {
        const clock = new ManualClock();
        const answers: Array<() => void> = [];
        const times: number[] = [];
        const refresh = new ConnectionTokenRefresh('http://localhost:3000/', () => {
            times.push(clock.now());
            return new Promise<void>(resolve => answers.push(resolve));
        }, clock);
        refresh.start();
        await clock.advance(9_000);
        assert.deepEqual(times, [2_000]);
        answers[0]();
        await new Promise(resolve => setImmediate(resolve));
        await clock.advance(2_000);
        assert.deepEqual(times, [2_000, 11_000]);
    });

    it('schedules nothing after a stop, when a request answers late', async () => {
        const clock = new ManualClock();
        let answer: () => void = () => undefined;
        const refresh = new ConnectionTokenRefresh('http://localhost:3000/', () => new Promise<void>(resolve => { answer = resolve; }), clock);
        refresh.start();
        await clock.advance(2_000);
        refresh.stop();
        answer();
        await new Promise(resolve => setImmediate(resolve));
        assert.equal(clock.pending, 0);
    });

    it('requests nothing when the page has no URL to request (Electron)', async () => {
        const clock = new ManualClock();
        let requests = 0;
        const refresh = new ConnectionTokenRefresh(undefined, async () => { requests++; }, clock);
        refresh.start();
        await clock.advance(10_000);
        assert.deepEqual([requests, refresh.running], [0, false]);
    });

    it('waits 10 s between requests after the first minute away', async () => {
        const clock = new ManualClock();
        const times: number[] = [];
        const refresh = new ConnectionTokenRefresh('http://localhost:3000/', async () => { times.push(clock.now()); }, clock);
        refresh.start();
        await clock.advance(80_000);
        assert.deepEqual(times.slice(-3), [60_000, 70_000, 80_000]);
        assert.equal(times.length, 32);
    });
});

describe('BackendConnection', () => {
    it('is away from the moment the socket closes, refreshing the token, until a new channel opens (a restarted backend)', () => {
        const { socket, refresh, connection, seen } = setup();
        socket.closed.fire();
        assert.deepEqual([connection.away, refresh.running, seen], [true, true, ['away']]);
        socket.newChannel.fire({});
        assert.deepEqual([connection.away, refresh.running, seen], [false, false, ['away', 'back', 'reconnected']]);
    });

    it('is back once a socket to the same backend stayed open SOCKET_SETTLE_MS', async () => {
        const { socket, clock, connection, seen } = setup();
        socket.closed.fire();
        socket.opened.fire();
        await clock.advance(SOCKET_SETTLE_MS - 1);
        assert.equal(connection.away, true);
        await clock.advance(1);
        assert.deepEqual([connection.away, seen], [false, ['away', 'back', 'reconnected']]);
    });

    it('stays away when the socket closes again before it settled (Theia found no channel to resume), until the new channel', async () => {
        const { socket, clock, connection, seen } = setup();
        socket.closed.fire();
        socket.opened.fire();
        socket.closed.fire();
        await clock.advance(SOCKET_SETTLE_MS * 5);
        assert.deepEqual([connection.away, seen], [true, ['away']]);
        socket.opened.fire();
        socket.newChannel.fire({});
        await clock.advance(SOCKET_SETTLE_MS * 5);
        assert.deepEqual([connection.away, seen], [false, ['away', 'back', 'reconnected']]);
    });

    it('says so when away for LONG_AWAY_MS, and forgets it when back', async () => {
        const { socket, clock, connection, seen } = setup();
        socket.closed.fire();
        await clock.advance(LONG_AWAY_MS - 1);
        assert.equal(connection.awayLong, false);
        await clock.advance(1);
        assert.deepEqual([connection.awayLong, seen], [true, ['away', 'away-long']]);
        socket.newChannel.fire({});
        assert.deepEqual([connection.away, connection.awayLong], [false, false]);
        socket.closed.fire();
        await clock.advance(LONG_AWAY_MS - 1);
        assert.equal(connection.awayLong, false, 'the second time away counts from its own start');
    });

    it('tells nothing for the first connection of the page', async () => {
        const { socket, clock, connection, seen } = setup();
        socket.opened.fire();
        socket.newChannel.fire({});
        await clock.advance(SOCKET_SETTLE_MS);
        assert.deepEqual([connection.away, seen, clock.pending], [false, [], 0]);
    });

    it('stops refreshing and timing when the application stops', () => {
        const { socket, clock, refresh, connection } = setup();
        socket.closed.fire();
        connection.onStop();
        assert.deepEqual([refresh.running, clock.pending], [false, 0]);
    });
});
