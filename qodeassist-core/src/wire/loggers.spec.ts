import * as assert from 'node:assert/strict';
import { LogCategory, LogLevel } from '../ports/logger';
import { KnownSecrets } from './redaction';
import { RedactingLogger } from './loggers';

describe('RedactingLogger', () => {
    it('redacts known secrets and key shapes at every level, and filters by level', () => {
        const lines: Array<[LogLevel, LogCategory, string]> = [];
        const logger = new RedactingLogger((level, category, message) => lines.push([level, category, message]), 'debug');
        logger.addSecret('my-secret-value');
        logger.log('debug', 'qodeassist.wire', 'body {"x-api-key": "abc123456"} with my-secret-value');
        logger.log('error', 'qodeassist.session', 'Authorization: Bearer tok_123456789');
        assert.deepEqual(lines, [
            ['debug', 'qodeassist.wire', 'body {"x-api-key": "[REDACTED]"} with [REDACTED]'],
            ['error', 'qodeassist.session', 'Authorization: Bearer [REDACTED]']
        ]);
        const quiet = new RedactingLogger((level, category, message) => lines.push([level, category, message]), 'warn');
        quiet.log('info', 'qodeassist.config', 'not shown');
        assert.equal(lines.length, 2);
    });

    it('scrubs a value added to its KnownSecrets after it was made, as a key resolved later is', () => {
        const lines: string[] = [];
        const known = new KnownSecrets();
        const logger = new RedactingLogger((_level, _category, message) => lines.push(message), 'info', known);
        known.add('resolved-later-42');
        logger.log('info', 'qodeassist.session', 'sent resolved-later-42');
        assert.deepEqual(lines, ['sent [REDACTED]']);
    });
});
