import { ndJsonStream } from '@agentclientprotocol/sdk';
import { Readable, Writable } from 'node:stream';
import { format } from 'node:util';
import { RedactingLogger } from '../wire/loggers';
import { PROCESS_SECRETS } from '../wire/redaction';
import { toErrorInfo } from '../wire/error-info';
import { QodeAssistAcpServer } from './acp-agent-server';
import { ACP_USAGE, acpServerSettings } from './acp-server-settings';

/**
 * The process side of `qodeassist-acp`: stdout carries the protocol and nothing else (anything
 * that would print there goes to stderr), stdin closing or a signal ends the sessions.
 */
export async function main(argv = process.argv.slice(2)): Promise<void> {
    let settings;
    try {
        settings = acpServerSettings(argv, process.env, process.cwd());
    } catch (error) {
        process.stderr.write(`${toErrorInfo(error).message}\n`);
        process.exitCode = 2;
        return;
    }
    if (settings === 'help') {
        process.stdout.write(`${ACP_USAGE}\n`);
        return;
    }
    // A stray console.log anywhere (a library's) would corrupt the JSON-RPC stream: it goes to stderr.
    const toStderr = (...args: unknown[]) => void process.stderr.write(`${format(...args)}\n`);
    Object.assign(globalThis.console, { log: toStderr, info: toStderr, debug: toStderr });
    const logger = new RedactingLogger((level, category, message) => process.stderr.write(`[${level}] ${category}: ${message}\n`), settings.logLevel, PROCESS_SECRETS);
    const server = new QodeAssistAcpServer(settings, logger);
    const stream = ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
    const connection = server.connect(stream);
    let ending: Promise<void> | undefined;
    const end = () => ending ??= server.dispose().finally(() => process.exit(0));
    process.once('SIGTERM', () => void end());
    process.once('SIGINT', () => void end());
    await connection.closed;
    await end();
}
