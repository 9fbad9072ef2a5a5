export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One category per layer, as docs/ARCHITECTURE.md §7 names them. */
export type LogCategory = 'qodeassist.wire' | 'qodeassist.config' | 'qodeassist.session' | 'qodeassist.context' | 'qodeassist.tools' | 'qodeassist.mcp' | 'qodeassist.bench';

export interface Logger {
    log(level: LogLevel, category: LogCategory, message: string): void;
}

/** Where log lines end up: the Theia log, stderr in the bench CLI, an array in tests. */
export type LogSink = (level: LogLevel, category: LogCategory, message: string) => void;
