import * as assert from 'node:assert/strict';
import { redactSecrets } from './redaction';

describe('redactSecrets', () => {
    const cases: Array<[string, string, string[]]> = [
        ['known value anywhere', 'key is abcd1234efgh in text', ['abcd1234efgh']],
        ['bearer header', 'Authorization: Bearer tok_live_123456', []],
        ['x-api-key header', '{"x-api-key": "secret-value-9"}', []],
        ['OpenAI-shaped key', 'used sk-proj-ABCDEFGHIJKLMNOP', []]
    ];
    for (const [name, input, secrets] of cases) {
        it(`masks a ${name}`, () => {
            const output = redactSecrets(input, secrets);
            assert.match(output, /\[REDACTED\]/);
            for (const secret of ['abcd1234efgh', 'tok_live_123456', 'secret-value-9', 'IJKLMNOP']) {
                assert.ok(!output.includes(secret), `${output} still contains ${secret}`);
            }
        });
    }

    it('leaves ordinary text alone', () => {
        assert.equal(redactSecrets('nothing secret here'), 'nothing secret here');
    });
});
