import { KnownSecrets, LogCategory, Logger, LogLevel, PROCESS_SECRETS, RedactingLogger } from '@qodeassist/core';
import { inject, injectable, optional } from '@theia/core/shared/inversify';
import { LogLine, QodeAssistLogClient, QodeAssistLogLevel, QodeAssistLogService } from '../common/log-protocol';
import { QodeAssistKnownSecrets } from './backend-symbols';

/** Most lines kept while no window listens, or between two flushes. */
const MAX_PENDING = 500;

/**
 * The log of one frontend connection: what its chats, refactors and completions log, redacted,
 * filtered by the user's level, and sent to the window's QodeAssist output channel in batches.
 */
@injectable()
export class ConnectionLog implements Logger, QodeAssistLogService {
    private client: QodeAssistLogClient | undefined;
    private pending: LogLine[] = [];
    private flushScheduled = false;
    private redacting: RedactingLogger | undefined;

    /** `secrets`: the keys the backend's SecretsStore resolved, scrubbed by value from every line. */
    constructor(@inject(QodeAssistKnownSecrets) @optional() private readonly secrets: KnownSecrets = PROCESS_SECRETS) {
        this.redacting = this.loggerFor('warn');
    }

    setClient(client: QodeAssistLogClient | undefined): void {
        this.client = client;
    }

    async setLevel(level: QodeAssistLogLevel): Promise<void> {
        this.redacting = level === 'off' ? undefined : this.loggerFor(level);
    }

    log(level: LogLevel, category: LogCategory, message: string): void {
        this.redacting?.log(level, category, message);
    }

    dispose(): void {
        this.client = undefined;
        this.pending = [];
    }

    private loggerFor(minimum: LogLevel): RedactingLogger {
        return new RedactingLogger((level, category, message) => this.queue({ time: new Date().toISOString(), level, category, message }), minimum, this.secrets);
    }

    private queue(line: LogLine): void {
        this.pending.push(line);
        if (this.pending.length > MAX_PENDING) {
            this.pending.splice(0, this.pending.length - MAX_PENDING);
        }
        if (!this.flushScheduled) {
            this.flushScheduled = true;
            setImmediate(() => {
                this.flushScheduled = false;
                const lines = this.pending;
                if (this.client && lines.length) {
                    this.pending = [];
                    this.client.onLog(lines);
                }
            });
        }
    }
}
