import * as assert from 'node:assert/strict';
import { ConfigIssue } from './config-issue';
import { loadTomlFile } from './config-file';
import { AgentFileSchema, knownKeys, LimitsSchema } from './schemas';

const agentFile = (limits: string) => ({
    label: '/home/me/.qodeassist/agents/mine.toml', path: '/home/me/.qodeassist/agents/mine.toml',
    text: `schema_version = 1\nname = "mine"\nextends = "ollama-chat"\n\n[limits]\n${limits}\n`
});
const load = (limits: string) => loadTomlFile(agentFile(limits), 'agent', AgentFileSchema, path => path[0] === 'limits' ? knownKeys(LimitsSchema) : knownKeys(AgentFileSchema));
const pick = (issue: ConfigIssue) => ({ file: issue.file, line: issue.line, field: issue.field, message: issue.message });

describe('agent [limits] schema', () => {
    it('accepts seconds (fractions too) and a whole number of tool rounds', () => {
        const parsed = load('connect = 10\nidle = 0.5\ntotal = 900\nmax_tool_rounds = 50');
        assert.deepEqual(parsed.issues, []);
        assert.deepEqual(parsed.value?.limits, { connect: 10, idle: 0.5, total: 900, max_tool_rounds: 50 });
    });

    it('accepts whole numbers of bytes for the record and answer sizes, written with separators too', () => {
        const parsed = load('max_record_bytes = 1_048_576\nmax_answer_bytes = 134217728');
        assert.deepEqual(parsed.issues, []);
        assert.deepEqual(parsed.value?.limits, { max_record_bytes: 1_048_576, max_answer_bytes: 134_217_728 });
    });

    const refusals: Array<{ name: string; limits: string; field: string; message: string }> = [
        { name: 'zero seconds', limits: 'total = 0', field: 'limits.total', message: '[limits] total must be more than 0 seconds' },
        { name: 'negative seconds', limits: 'idle = -5', field: 'limits.idle', message: '[limits] idle must be more than 0 seconds' },
        { name: 'seconds as text', limits: 'connect = "30s"', field: 'limits.connect', message: '[limits] connect must be a number of seconds' },
        { name: 'infinite seconds', limits: 'total = inf', field: 'limits.total', message: '[limits] total must be a number of seconds' },
        { name: 'a fraction of a round', limits: 'max_tool_rounds = 2.5', field: 'limits.max_tool_rounds', message: '[limits] max_tool_rounds must be a whole number of rounds' },
        { name: 'zero rounds', limits: 'max_tool_rounds = 0', field: 'limits.max_tool_rounds', message: '[limits] max_tool_rounds must be 1 or more' },
        { name: 'a fraction of a byte', limits: 'max_record_bytes = 1.5', field: 'limits.max_record_bytes', message: '[limits] max_record_bytes must be a whole number of bytes' },
        { name: 'zero bytes', limits: 'max_answer_bytes = 0', field: 'limits.max_answer_bytes', message: '[limits] max_answer_bytes must be 1 or more bytes' },
        { name: 'a size as text', limits: 'max_answer_bytes = "64 MiB"', field: 'limits.max_answer_bytes', message: '[limits] max_answer_bytes must be a whole number of bytes' }
    ];
    for (const refusal of refusals) {
        it(`refuses ${refusal.name}, naming the file, the key and its line`, () => {
            const parsed = load(refusal.limits);
            assert.equal(parsed.value, undefined);
            assert.deepEqual(parsed.issues.map(pick), [{ file: '/home/me/.qodeassist/agents/mine.toml', line: 6, field: refusal.field, message: refusal.message }]);
        });
    }

    it('refuses an unknown key with "did you mean"', () => {
        const parsed = load('totl = 60');
        assert.deepEqual(parsed.issues.map(issue => [issue.field, issue.message, issue.fix]), [['limits.totl', 'unknown key "totl"', 'did you mean "total"?']]);
    });
});
