import * as assert from 'node:assert/strict';
import { DEFAULT_LIMITS, effectiveLimits, LimitLayers, LimitSource, raiseLimitAdvice, RequestLimits } from './request-limits';

describe('request limits', () => {
    const cases: Array<{ name: string; layers: LimitLayers; values: Partial<RequestLimits>; from: Partial<Record<keyof RequestLimits, LimitSource>> }> = [
        {
            name: 'nothing set: the built-in defaults',
            layers: {}, values: {}, from: { connectSeconds: 'default', idleSeconds: 'default', totalSeconds: 'default', maxToolRounds: 'default' }
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

    it('the defaults are 30 s to connect, 120 s idle, 1800 s per answer and 30 tool rounds', () => {
        assert.deepEqual(DEFAULT_LIMITS, { connectSeconds: 30, idleSeconds: 120, totalSeconds: 1800, maxToolRounds: 30 });
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
