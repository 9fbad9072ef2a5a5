import type { LogCategory, LogLevel } from '@qodeassist/core';
import { RpcServer } from '@theia/core/lib/common/messaging/proxy-factory';

export const QODEASSIST_LOG_PATH = '/services/qodeassist/log';

/** The `qodeassist.logging.level` preference: `off`, or the least severe level shown. */
export type QodeAssistLogLevel = 'off' | LogLevel;

export interface LogLine {
    time: string;
    level: LogLevel;
    category: LogCategory;
    /** Already redacted: known keys and anything shaped like one never leave the backend. */
    message: string;
}

export const QodeAssistLogService = Symbol('QodeAssistLogService');

/** The backend's log lines for this window (requests, manifests, failures), at the level the user chose. */
export interface QodeAssistLogService extends RpcServer<QodeAssistLogClient> {
    setLevel(level: QodeAssistLogLevel): Promise<void>;
}

export interface QodeAssistLogClient {
    /** Lines logged since the last call, oldest first (sent in batches, never one message per line). */
    onLog(lines: LogLine[]): void;
}
