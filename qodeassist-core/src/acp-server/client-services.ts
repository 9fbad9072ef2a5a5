import type { AgentContext, ClientCapabilities, TerminalHandle } from '@agentclientprotocol/sdk';
import { readFile, realpath } from 'node:fs/promises';
import { CommandResult, ITerminal, TerminalRunOptions } from '../ports/process-ports';
import { capHeadTail } from '../tools/output-cap';
import { CancelledError } from '../wire/error-info';
import { LinkedFileReader } from './prompt-input';

/** What the client offers QodeAssist's tools, from its `initialize` capabilities. */
export interface ClientOffers {
    readTextFile: boolean;
    writeTextFile: boolean;
    terminal: boolean;
    notices: boolean;
}

export function clientOffers(capabilities: ClientCapabilities | undefined): ClientOffers {
    return {
        readTextFile: capabilities?.fs?.readTextFile === true,
        writeTextFile: capabilities?.fs?.writeTextFile === true,
        terminal: capabilities?.terminal === true,
        notices: !!capabilities?.session?.notices
    };
}

/**
 * The files as the client's editor holds them, for one session: read with unsaved changes,
 * written as an edit in the editor (the user sees it and can undo it). Without the capability,
 * reads fall back to the disk and writes are left to the tools (their own confined writes).
 */
export class ClientFiles implements LinkedFileReader {
    /** The text last written to each path, for the diff of the edit the chat reports afterwards. */
    private readonly written = new Map<string, string>();

    constructor(private readonly client: AgentContext, private readonly sessionId: () => string, private readonly offers: ClientOffers) { }

    get writesThroughClient(): boolean {
        return this.offers.writeTextFile;
    }

    /** The editor's text of a file; undefined when the client cannot say (no capability, or it has no such file). */
    async readOpen(path: string): Promise<string | undefined> {
        if (!this.offers.readTextFile) {
            return undefined;
        }
        try {
            return (await this.client.request('fs/read_text_file', { sessionId: this.sessionId(), path })).content;
        } catch {
            return undefined;
        }
    }

    async readText(path: string): Promise<string> {
        return await this.readOpen(path) ?? readFile(path, 'utf8');
    }

    async readBytes(path: string): Promise<Buffer> {
        return readFile(path);
    }

    /** Writes through the client; the tools checked the path (confinement, ignore rules, protected places) before this. */
    async write(path: string, content: string): Promise<void> {
        await this.client.request('fs/write_text_file', { sessionId: this.sessionId(), path, content });
        this.written.set(path, content);
    }

    /** The text after an edit: what was written through the client, else the file as the tool left it on disk. */
    async textAfterEdit(path: string): Promise<string | undefined> {
        // The tools write to the real place (links followed); the edit names the path as the model gave it.
        const real = await realpath(path).catch(() => path);
        const written = this.written.get(path) ?? this.written.get(real);
        this.written.delete(path);
        this.written.delete(real);
        return written ?? readFile(path, 'utf8').catch(() => undefined);
    }
}

/**
 * Runs the tools' commands in the client's terminal (`terminal/create`), so the user watches
 * them in the editor. The tool checked the program against the allowed list first; the command
 * gets no variables from QodeAssist (no keys). Timeout and cancel kill it; the terminal is
 * always released.
 */
export class ClientTerminal implements ITerminal {
    constructor(
        private readonly client: AgentContext, private readonly sessionId: string,
        /** Told the terminal's id once it exists, to embed it in the tool call's view. */
        private readonly onCreated: (terminalId: string) => void = () => undefined
    ) { }

    async run(argv: readonly string[], options: TerminalRunOptions): Promise<CommandResult> {
        if (options.signal?.aborted) {
            throw new CancelledError();
        }
        const terminal = await this.client.createTerminal({
            sessionId: this.sessionId, command: argv[0], args: argv.slice(1), cwd: options.cwd, env: [],
            // Bytes, with room for multi-byte characters; the head and tail are cut to characters below.
            outputByteLimit: options.maxOutputChars * 4
        });
        this.onCreated(terminal.id);
        try {
            const ended = await this.waitForEnd(terminal, options);
            const { output, truncated } = await terminal.currentOutput();
            const capped = capHeadTail(output, options.maxOutputChars);
            const status = ended === 'exited' ? await terminal.waitForExit() : undefined;
            return {
                exitCode: status ? status.exitCode ?? null : null,
                output: truncated ? `[… the start of the output was cut by the editor's terminal …]\n${capped.text}` : capped.text,
                timedOut: ended === 'timed-out', omitted: capped.omitted
            };
        } finally {
            await terminal.release().catch(() => undefined);
        }
    }

    /** Waits for the exit, the timeout or the cancel; the last two kill the command. A cancel throws once it is killed. */
    private async waitForEnd(terminal: TerminalHandle, options: TerminalRunOptions): Promise<'exited' | 'timed-out'> {
        let timer: NodeJS.Timeout | undefined;
        let onAbort: (() => void) | undefined;
        const stopped = new Promise<'timed-out' | 'cancelled'>(resolve => {
            timer = setTimeout(() => resolve('timed-out'), options.timeoutMs);
            onAbort = () => resolve('cancelled');
            options.signal?.addEventListener('abort', onAbort, { once: true });
        });
        try {
            const ended = await Promise.race([terminal.waitForExit().then(() => 'exited' as const), stopped]);
            if (ended !== 'exited') {
                await terminal.kill().catch(() => undefined);
            }
            if (ended === 'cancelled') {
                throw new CancelledError();
            }
            return ended;
        } finally {
            clearTimeout(timer);
            if (onAbort) {
                options.signal?.removeEventListener('abort', onAbort);
            }
        }
    }
}
