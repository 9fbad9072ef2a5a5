import * as assert from 'node:assert/strict';
import {
    answerLimitError, COMPLETION_LIMIT_DEFAULTS, DEFAULT_LIMITS, effectiveLimits, formatBytes, LIMIT_NAMES, LIMIT_SETTINGS, LIMIT_TOML_KEYS, LimitLayers,
    limitOverridesOfTable, LimitSource, raiseLimitAdvice, recordLimitError, RequestLimits
} from './request-limits';

describe('request limits', () => {
    const cases: Array<{ name: string; layers: LimitLayers; values: Partial<RequestLimits>; from: Partial<Record<keyof RequestLimits, LimitSource>> }> = [
        {
            name: 'nothing set: the built-in defaults',
            layers: {}, values: {},
            from: { connectSeconds: 'default', idleSeconds: 'default', totalSeconds: 'default', maxToolRounds: 'default', maxRecordBytes: 'default', maxAnswerBytes: 'default' }
        },
        {
            name: 'completion\'s defaults: 30 s and 512 KiB per answer, the rest as chat',
            layers: { defaults: COMPLETION_LIMIT_DEFAULTS }, values: { totalSeconds: 30, maxAnswerBytes: 512 * 1024 },
            from: { totalSeconds: 'default', maxAnswerBytes: 'default' }
        },
        {
            name: 'the agent\'s byte limits over completion\'s defaults, a setting over both',
            layers: { defaults: COMPLETION_LIMIT_DEFAULTS, agent: { maxAnswerBytes: 1_000_000, maxRecordBytes: 4096 }, settings: { maxRecordBytes: 65_536 } },
            values: { totalSeconds: 30, maxAnswerBytes: 1_000_000, maxRecordBytes: 65_536 },
            from: { maxAnswerBytes: 'agent', maxRecordBytes: 'setting' }
        },
        {
            name: 'a fractional byte count is cut to whole bytes',
            layers: { settings: { maxAnswerBytes: 2048.9 } }, values: { maxAnswerBytes: 2048 }, from: { maxAnswerBytes: 'setting' }
        },
        {
            name: 'the agent\'s [limits] over the defaults, key by key',
            layers: { agent: { totalSeconds: 60, maxToolRounds: 5 } }, values: { totalSeconds: 60, maxToolRounds: 5 },
            from: { totalSeconds: 'agent', maxToolRounds: 'agent', idleSeconds: 'default' }
        },
        {
            name: 'a setting over the agent',
            layers: { agent: { idleSeconds: 300, maxToolRounds: 5 }, settings: { idleSeconds: 0.2 } }, values: { idleSeconds: 0.2, maxToolRounds: 5 },
            from: { idleSeconds: 'setting', maxToolRounds: 'agent' }
        },
        {
            name: 'a setting of 0 or below is not set: the agent\'s value stays',
            layers: { agent: { totalSeconds: 90, connectSeconds: 10 }, settings: { totalSeconds: 0, connectSeconds: -1 } }, values: { totalSeconds: 90, connectSeconds: 10 },
            from: { totalSeconds: 'agent', connectSeconds: 'agent' }
        },
        {
            name: 'the host\'s defaults replace the built-in ones, below the agent',
            layers: { defaults: { maxToolRounds: 60, idleSeconds: 10 }, agent: { idleSeconds: 20 } }, values: { maxToolRounds: 60, idleSeconds: 20 },
            from: { maxToolRounds: 'default', idleSeconds: 'agent' }
        },
        {
            name: 'a fractional round count is cut to whole rounds, never below one',
            layers: { settings: { maxToolRounds: 2.7 }, agent: { maxToolRounds: 9 } }, values: { maxToolRounds: 2 }, from: { maxToolRounds: 'setting' }
        },
        {
            name: 'a non-finite value is not set',
            layers: { settings: { totalSeconds: Number.POSITIVE_INFINITY } }, values: { totalSeconds: DEFAULT_LIMITS.totalSeconds }, from: { totalSeconds: 'default' }
        }
    ];
    for (const entry of cases) {
        it(`effective limits: ${entry.name}`, () => {
            const limits = effectiveLimits(entry.layers);
            assert.deepEqual(limits.values, { ...DEFAULT_LIMITS, ...entry.values });
            for (const [name, source] of Object.entries(entry.from)) {
                assert.equal(limits.from[name as keyof RequestLimits], source, name);
            }
        });
    }

    it('the defaults are 30 s to connect, 120 s idle, 1800 s per answer, 30 tool rounds, 8 MiB per record and 64 MiB per answer', () => {
        assert.deepEqual(DEFAULT_LIMITS, {
            connectSeconds: 30, idleSeconds: 120, totalSeconds: 1800, maxToolRounds: 30, maxRecordBytes: 8 * 1024 * 1024, maxAnswerBytes: 64 * 1024 * 1024
        });
    });

    it('every limit has a [limits] key and a qodeassist.limits setting', () => {
        assert.deepEqual(LIMIT_NAMES.map(name => [LIMIT_TOML_KEYS[name], LIMIT_SETTINGS[name]]), [
            ['connect', 'qodeassist.limits.connectSeconds'], ['idle', 'qodeassist.limits.idleSeconds'], ['total', 'qodeassist.limits.totalSeconds'],
            ['max_tool_rounds', 'qodeassist.limits.maxToolRounds'], ['max_record_bytes', 'qodeassist.limits.maxRecordBytes'],
            ['max_answer_bytes', 'qodeassist.limits.maxAnswerBytes']
        ]);
    });

    it('an agent\'s [limits] table as written becomes the limits it sets, and only those', () => {
        const table = { total: 90, max_record_bytes: 1_048_576, max_answer_bytes: 134_217_728 };
        assert.deepEqual(limitOverridesOfTable(table), { totalSeconds: 90, maxRecordBytes: 1_048_576, maxAnswerBytes: 134_217_728 });
        assert.deepEqual(limitOverridesOfTable(undefined), {});
    });

    it('the size errors name the limit, its value, and where to raise it', () => {
        const limits = effectiveLimits({ agent: { maxAnswerBytes: 1536 }, agentFile: '/home/me/.qodeassist/agents/mine.toml' });
        assert.deepEqual(answerLimitError(1536, limit => raiseLimitAdvice(limit, limits)).info, {
            category: 'Provider',
            message: 'The answer grew past 1.5 KiB (the max_answer_bytes limit), so it was stopped; what arrived before it is kept. '
                + 'To allow longer answers, raise [limits] max_answer_bytes in the agent file /home/me/.qodeassist/agents/mine.toml or the setting qodeassist.limits.maxAnswerBytes.'
        });
        assert.deepEqual(recordLimitError(8 * 1024 * 1024).info, {
            category: 'Provider',
            message: 'The provider sent a record (one event or line of the stream) longer than 8 MiB (the max_record_bytes limit), so the answer was stopped; '
                + 'what arrived before it is kept. Check the provider\'s URL and protocol; if it really sends records this large, '
                + 'raise [limits] max_record_bytes in the agent\'s file or the setting qodeassist.limits.maxRecordBytes.'
        });
    });

    it('sizes read as people write them', () => {
        assert.deepEqual([300, 1024, 1536, 65_536, 8 * 1024 * 1024, 3_000_000].map(formatBytes), ['300 bytes', '1 KiB', '1.5 KiB', '64 KiB', '8 MiB', '2.86 MiB']);
    });

    it('the advice names the agent file and the setting, or only the setting when that set the value', () => {
        const user = effectiveLimits({ agent: { totalSeconds: 60 }, agentFile: '/home/me/.qodeassist/agents/mine.toml' });
        assert.equal(raiseLimitAdvice('totalSeconds', user),
            'raise [limits] total in the agent file /home/me/.qodeassist/agents/mine.toml or the setting qodeassist.limits.totalSeconds.');
        const bundled = effectiveLimits({ agentFile: 'bundled:agents/claude-chat.toml' });
        assert.equal(raiseLimitAdvice('maxToolRounds', bundled),
            'raise [limits] max_tool_rounds in a copy of the agent file agents/claude-chat.toml in ~/.qodeassist/agents/ or the setting qodeassist.limits.maxToolRounds.');
        const setting = effectiveLimits({ agent: { idleSeconds: 300 }, settings: { idleSeconds: 5 }, agentFile: '/p/.qodeassist/agents/a.toml' });
        assert.equal(raiseLimitAdvice('idleSeconds', setting), 'raise the setting qodeassist.limits.idleSeconds (it overrides [limits] idle of the agent file).');
        assert.equal(raiseLimitAdvice('connectSeconds'), 'raise [limits] connect in the agent\'s file or the setting qodeassist.limits.connectSeconds.');
    });
});
