import { readFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { BUILTIN_PROTOCOLS, FakeProtocol } from './protocols';
import { ReplayScenario, Scenario, ScenarioRule } from './scenarios';

export const FIXTURES_DIR = join(__dirname, '..', '..', 'fixtures');

export type RequestOutcome = 'completed' | 'status' | 'aborted-by-client' | 'reset' | 'hung' | 'unmatched';

export interface RecordedRequest {
    protocol: string | undefined;
    method: string;
    path: string;
    headers: Record<string, string | string[] | undefined>;
    body: string;
    /** Records sent before the request ended. */
    recordsSent: number;
    outcome?: RequestOutcome;
    /** Resolves when the request ended, whatever the outcome. */
    ended: Promise<RequestOutcome>;
}

export interface FakeProviderOptions {
    protocols?: readonly FakeProtocol[];
    /** The server closes itself after this long, so a forgotten server never outlives its test run. */
    maxLifetimeMs?: number;
    /** How long a `hang` lasts before the socket is destroyed. */
    hangMs?: number;
    /** Upper bound on records sent for one request. */
    maxRecords?: number;
}

/**
 * A real HTTP server on 127.0.0.1 that answers provider requests from recorded
 * streams, with pacing and faults. Tests choose what it does per request through
 * rules (first match wins), a queue of one-shot scenarios, or a default.
 */
export class FakeProviderServer {
    readonly requests: RecordedRequest[] = [];

    /** The newest model request (a POST): model listings the IDE makes meanwhile (setup checks, the configuration view) are not it. */
    lastModelRequest(): RecordedRequest | undefined {
        return this.requests.filter(request => request.method === 'POST').at(-1);
    }

    private readonly protocols: readonly FakeProtocol[];
    private readonly rules: ScenarioRule[] = [];
    private readonly queue: Scenario[] = [];
    private readonly listingQueue: Scenario[] = [];
    private defaultScenario: Scenario | undefined;
    private server: Server | undefined;
    private lifetimeTimer: NodeJS.Timeout | undefined;
    private readonly openResponses = new Set<ServerResponse>();
    private readonly hangMs: number;
    private readonly maxRecords: number;
    private readonly maxLifetimeMs: number;

    constructor(options: FakeProviderOptions = {}) {
        this.protocols = options.protocols ?? BUILTIN_PROTOCOLS;
        this.hangMs = options.hangMs ?? 60_000;
        this.maxRecords = options.maxRecords ?? 100_000;
        this.maxLifetimeMs = options.maxLifetimeMs ?? 30 * 60_000;
    }

    get url(): string {
        const address = this.server?.address() as AddressInfo | null | undefined;
        if (!address) {
            throw new Error('The fake provider server is not started.');
        }
        return `http://127.0.0.1:${address.port}`;
    }

    async start(port = 0): Promise<string> {
        const server = createServer((req, res) => void this.handle(req, res));
        await new Promise<void>((resolve, reject) => {
            server.once('error', reject);
            server.listen(port, '127.0.0.1', () => resolve());
        });
        this.server = server;
        this.lifetimeTimer = setTimeout(() => void this.stop(), this.maxLifetimeMs);
        this.lifetimeTimer.unref();
        return this.url;
    }

    async stop(): Promise<void> {
        clearTimeout(this.lifetimeTimer);
        for (const res of this.openResponses) {
            res.destroy();
        }
        const server = this.server;
        this.server = undefined;
        if (server) {
            server.closeAllConnections();
            await new Promise<void>(resolve => server.close(() => resolve()));
        }
    }

    setDefault(scenario: Scenario): this {
        this.defaultScenario = scenario;
        return this;
    }

    /** Answers the next request (of any kind) with this scenario, once. */
    /** Answers for the next model requests (POST), in order; model listings the IDE makes meanwhile do not take them. */
    enqueue(...scenarios: Scenario[]): this {
        this.queue.push(...scenarios);
        return this;
    }

    /** Answers for the next model listings (GET …/models, …/api/tags), in order. */
    enqueueListing(...scenarios: Scenario[]): this {
        this.listingQueue.push(...scenarios);
        return this;
    }

    when(rule: ScenarioRule): this {
        this.rules.push(rule);
        return this;
    }

    reset(): void {
        this.rules.length = 0;
        this.queue.length = 0;
        this.listingQueue.length = 0;
        this.requests.length = 0;
        this.defaultScenario = undefined;
    }

    private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
        const body = await readRequestBody(req);
        const path = (req.url ?? '/').split('?')[0];
        const protocol = this.protocols.find(p => p.method === req.method && p.path.test(path)
            && (!p.requiresHeader || req.headers[p.requiresHeader] !== undefined));
        let settle!: (outcome: RequestOutcome) => void;
        const record: RecordedRequest = {
            protocol: protocol?.name, method: req.method ?? 'GET', path, headers: req.headers, body, recordsSent: 0,
            ended: new Promise(resolve => { settle = resolve; })
        };
        const finish = (outcome: RequestOutcome) => {
            if (!record.outcome) {
                record.outcome = outcome;
                settle(outcome);
            }
        };
        this.requests.push(record);
        this.openResponses.add(res);
        res.on('close', () => {
            this.openResponses.delete(res);
            finish(res.writableFinished ? 'completed' : 'aborted-by-client');
        });
        if (!protocol) {
            res.writeHead(404, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: { message: `The fake provider has no route for ${req.method} ${path}` } }));
            finish('unmatched');
            return;
        }
        const picked = this.pickScenario(protocol, body);
        const scenario = picked.kind === 'dynamic' ? picked.respond(body) : picked;
        if (scenario.kind !== 'hang' && scenario.firstByteDelayMs) {
            await delay(scenario.firstByteDelayMs);
            if (res.destroyed) {
                return;
            }
        }
        switch (scenario.kind) {
            case 'status':
                res.writeHead(scenario.status, { 'content-type': 'application/json', ...scenario.headers });
                res.end(scenario.body ?? JSON.stringify({ error: { message: `fake status ${scenario.status}` } }));
                finish('status');
                return;
            case 'hang':
                setTimeout(() => { finish('hung'); res.destroy(); }, this.hangMs).unref();
                return;
            case 'replay':
                await this.replay(protocol, scenario, res, record, finish);
                return;
        }
    }

    private pickScenario(protocol: FakeProtocol, body: string): Scenario {
        const queued = protocol.method === 'GET' ? this.listingQueue.shift() : this.queue.shift();
        if (queued) {
            return queued;
        }
        const prompt = protocol.lastUserText(parseJson(body)) ?? '';
        const rule = this.rules.find(r =>
            (!r.protocol || r.protocol === protocol.name)
            && (!r.bodyIncludes || body.includes(r.bodyIncludes))
            && (!r.promptIncludes || prompt.includes(r.promptIncludes)));
        return rule?.scenario ?? this.defaultScenario ?? { kind: 'replay', fixture: protocol.defaultFixture };
    }

    private async replay(
        protocol: FakeProtocol, scenario: ReplayScenario, res: ServerResponse, record: RecordedRequest,
        finish: (outcome: RequestOutcome) => void
    ): Promise<void> {
        const recording = scenario.recording ?? readFileSync(join(FIXTURES_DIR, scenario.fixture ?? protocol.defaultFixture), 'utf8');
        const records: Array<string | Buffer> = scenario.chunkBytes
            ? splitBytes(recording, scenario.chunkBytes)
            : protocol.splitRecords(recording).slice(0, this.maxRecords);
        if (scenario.corruptRecord) {
            records[scenario.corruptRecord.index] = scenario.corruptRecord.text;
        }
        res.writeHead(200, { 'content-type': protocol.contentType, 'cache-control': 'no-cache' });
        res.flushHeaders();
        for (let index = 0; index < records.length; index++) {
            if (res.destroyed) {
                return;
            }
            if (scenario.resetAfterRecords !== undefined && index >= scenario.resetAfterRecords) {
                // Let what was written reach the client first: a TCP reset discards unread data.
                await delay(Math.max(scenario.chunkDelayMs ?? 0, 50));
                finish('reset');
                res.socket?.resetAndDestroy();
                res.destroy();
                return;
            }
            if (scenario.hangAfterRecords !== undefined && index >= scenario.hangAfterRecords) {
                setTimeout(() => { finish('hung'); res.destroy(); }, this.hangMs).unref();
                return;
            }
            if (index > 0 && scenario.chunkDelayMs) {
                await delay(scenario.chunkDelayMs);
            }
            if (res.destroyed) {
                return;
            }
            if (!res.write(records[index])) {
                await new Promise(resolve => {
                    res.once('drain', resolve);
                    res.once('close', resolve);
                });
            }
            record.recordsSent = index + 1;
        }
        res.end();
    }
}

function readRequestBody(req: IncomingMessage): Promise<string> {
    return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        req.on('data', chunk => chunks.push(chunk as Buffer));
        req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        req.on('error', reject);
    });
}

function splitBytes(text: string, size: number): Buffer[] {
    const bytes = Buffer.from(text, 'utf8');
    const pieces: Buffer[] = [];
    for (let start = 0; start < bytes.length; start += size) {
        pieces.push(bytes.subarray(start, start + size));
    }
    return pieces;
}

function parseJson(text: string): unknown {
    try {
        return JSON.parse(text);
    } catch {
        return undefined;
    }
}

function delay(ms: number): Promise<void> {
    return new Promise(resolve => setTimeout(resolve, ms));
}
