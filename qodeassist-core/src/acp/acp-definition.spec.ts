import * as assert from 'node:assert/strict';
import { acpLimits, commandLineOf, DEFAULT_ACP_LIMITS } from './acp-definition';

describe('acp-definition', () => {
    it('applies only usable limit overrides', () => {
        const limits = acpLimits({ maxTerminals: 2, turnIdleSeconds: 0, maxMessageBytes: Number.NaN, cancelGraceSeconds: -1 });
        assert.equal(limits.maxTerminals, 2);
        assert.equal(limits.turnIdleSeconds, DEFAULT_ACP_LIMITS.turnIdleSeconds);
        assert.equal(limits.maxMessageBytes, DEFAULT_ACP_LIMITS.maxMessageBytes);
        assert.equal(limits.cancelGraceSeconds, DEFAULT_ACP_LIMITS.cancelGraceSeconds);
    });

    it('quotes the command line for messages, cutting long arguments and masking key shapes', () => {
        assert.equal(commandLineOf({ name: 'a', command: 'npx', args: ['@zed-industries/claude-code-acp', 'two words'] }), 'npx @zed-industries/claude-code-acp "two words"');
        const line = commandLineOf({ name: 'a', command: 'agent', args: ['--key=sk-ant-api03-abcdefghijklmnopqrstuvwxyz', 'x'.repeat(500)] });
        assert.ok(!line.includes('abcdefghijklmnopqrstuvwxyz'), line);
        assert.ok(line.length < 200, line);
    });
});
