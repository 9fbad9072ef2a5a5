import { LogCategory, Logger, LogLevel, LogSink } from '../ports/logger';
import { KnownSecrets } from './redaction';

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/**
 * A logger that redacts unconditionally — known secret values and anything shaped like a
 * key — before a line reaches any sink, whatever the level. Request bodies belong at debug.
 */
export class RedactingLogger implements Logger {
    /** `secrets`: shared with the SecretsStore that resolves keys, so each resolved key is scrubbed from then on. */
    constructor(private readonly sink: LogSink, private readonly minimum: LogLevel = 'info', private readonly secrets: KnownSecrets = new KnownSecrets()) { }

    /** Secret values to scrub from now on (a key read from the SecretsStore). */
    addSecret(value: string | undefined): void {
        this.secrets.add(value);
    }

    log(level: LogLevel, category: LogCategory, message: string): void {
        if (ORDER[level] >= ORDER[this.minimum]) {
            this.sink(level, category, this.secrets.redact(message));
        }
    }
}

/** For code that may run without logging. */
export const SILENT_LOGGER: Logger = { log: () => undefined };
