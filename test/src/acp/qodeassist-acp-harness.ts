import type { ClientCapabilities, ClientConnection, RequestPermissionRequest, RequestPermissionResponse, SessionUpdate } from '@agentclientprotocol/sdk';
import { client, ndJsonStream } from '@agentclientprotocol/sdk';
import { ChildProcess, ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';

export const ACP_BIN = join(__dirname, '..', '..', '..', 'qodeassist-core', 'bin', 'qodeassist-acp.js');

/** An editor as an ACP client: it serves files (open ones with unsaved text), answers permission questions, and records what it was asked. */
export class AcpTestClient {
    readonly updates: Array<{ sessionId: string; update: SessionUpdate }> = [];
    readonly permissions: RequestPermissionRequest[] = [];
    /** What the agent asked of the client, in order: `read <path>`, `write <path>`, `permission <tool call id>`. */
    readonly calls: string[] = [];
    /** Open editors: path → unsaved text, served instead of the disk. */
    readonly editors = new Map<string, string>();
    /**
     * The option the next permission questions are answered with, by kind; `cancelled` answers
     * cancelled; `hold` leaves them open until `release(kind)`.
     */
    answer: 'allow_once' | 'allow_always' | 'reject_once' | 'cancelled' | 'hold' = 'allow_once';
    private held: Array<(kind: string) => void> = [];
    /** Commands the agent ran in the client's terminals: argv, cwd and environment given. */
    readonly terminals: Array<{ id: string; argv: string[]; cwd?: string | null; env: unknown; output: string; exit?: { exitCode: number | null; signal: string | null }; released: boolean }> = [];
    private readonly processes = new Map<string, { child: ChildProcess; exited: Promise<void> }>();
    stderr = '';
    readonly connection: ClientConnection;
    private readonly child: ChildProcessWithoutNullStreams;
    readonly exited: Promise<number | null>;

    constructor(args: readonly string[], env: Record<string, string | undefined>, cwd: string) {
        this.child = spawn(process.execPath, [ACP_BIN, ...args], { cwd, env });
        this.child.stderr.on('data', chunk => { this.stderr += chunk; });
        this.exited = new Promise(resolve => this.child.on('exit', code => resolve(code)));
        this.connection = client({ name: 'qodeassist-acp-test' })
            .onNotification('session/update', ({ params }) => { this.updates.push({ sessionId: params.sessionId, update: params.update }); })
            .onRequest('fs/read_text_file', ({ params }) => {
                this.calls.push(`read ${params.path}`);
                return { content: this.editors.get(params.path) ?? readFileSync(params.path, 'utf8') };
            })
            .onRequest('fs/write_text_file', ({ params }) => {
                this.calls.push(`write ${params.path}`);
                this.editors.set(params.path, params.content);
                writeFileSync(params.path, params.content);
                return {};
            })
            .onRequest('session/request_permission', async ({ params }): Promise<RequestPermissionResponse> => {
                this.calls.push(`permission ${params.toolCall.toolCallId}`);
                this.permissions.push(params);
                const kind = this.answer === 'hold' ? await new Promise<string>(resolve => this.held.push(resolve)) : this.answer;
                const option = params.options.find(candidate => candidate.kind === kind);
                return { outcome: option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' } };
            })
            .onRequest('terminal/create', ({ params }) => {
                const id = `term-${this.terminals.length + 1}`;
                this.calls.push(`terminal ${params.command} ${(params.args ?? []).join(' ')}`.trim());
                const record: AcpTestClient['terminals'][number] = { id, argv: [params.command, ...params.args ?? []], cwd: params.cwd, env: params.env, output: '', released: false };
                this.terminals.push(record);
                const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, env: { PATH: process.env.PATH } });
                child.stdout?.on('data', chunk => { record.output += chunk; });
                child.stderr?.on('data', chunk => { record.output += chunk; });
                const exited = new Promise<void>(resolve => child.on('close', (exitCode, signal) => {
                    record.exit = { exitCode, signal };
                    resolve();
                }));
                this.processes.set(id, { child, exited });
                return { terminalId: id };
            })
            .onRequest('terminal/output', ({ params }) => {
                const record = this.terminal(params.terminalId);
                return { output: record.output, truncated: false, exitStatus: record.exit ?? null };
            })
            .onRequest('terminal/wait_for_exit', async ({ params }) => {
                await this.processes.get(params.terminalId)?.exited;
                return this.terminal(params.terminalId).exit ?? {};
            })
            .onRequest('terminal/kill', ({ params }) => {
                this.processes.get(params.terminalId)?.child.kill('SIGKILL');
                return {};
            })
            .onRequest('terminal/release', ({ params }) => {
                this.processes.get(params.terminalId)?.child.kill('SIGKILL');
                this.terminal(params.terminalId).released = true;
                return {};
            })
            .connect(ndJsonStream(Writable.toWeb(this.child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(this.child.stdout) as ReadableStream<Uint8Array>));
    }

    /** Answers the questions held open (`answer = 'hold'`) with this kind of option. */
    release(kind: 'allow_once' | 'reject_once' | 'cancelled'): void {
        this.held.splice(0).forEach(resolve => resolve(kind));
    }

    private terminal(id: string): AcpTestClient['terminals'][number] {
        const record = this.terminals.find(candidate => candidate.id === id);
        if (!record) {
            throw new Error(`no terminal ${id}`);
        }
        return record;
    }

    get agent() {
        return this.connection.agent;
    }

    initialize(capabilities: ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true } }) {
        return this.agent.request('initialize', { protocolVersion: 1, clientCapabilities: capabilities, clientInfo: { name: 'test', version: '1' } });
    }

    /** The updates of a session, of one kind. */
    of<K extends SessionUpdate['sessionUpdate']>(sessionId: string, kind: K): Array<Extract<SessionUpdate, { sessionUpdate: K }>> {
        return this.updates.filter(entry => entry.sessionId === sessionId && entry.update.sessionUpdate === kind)
            .map(entry => entry.update as Extract<SessionUpdate, { sessionUpdate: K }>);
    }

    /** The agent's answer text of a session so far. */
    answerText(sessionId: string): string {
        return this.of(sessionId, 'agent_message_chunk').map(update => update.content.type === 'text' ? update.content.text : '').join('');
    }

    async until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
        const deadline = Date.now() + timeoutMs;
        while (!condition()) {
            if (Date.now() > deadline) {
                throw new Error(`Timed out waiting for ${what}. stderr:\n${this.stderr}`);
            }
            await new Promise(resolve => setTimeout(resolve, 20));
        }
    }

    /** Closes stdin, as an editor that quits does: the server ends its sessions and exits. */
    async close(): Promise<number | null> {
        this.child.stdin.end();
        const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
        try {
            return await this.exited;
        } finally {
            clearTimeout(timer);
        }
    }
}
