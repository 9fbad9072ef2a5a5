import * as assert from 'node:assert/strict';
import { KnownSecrets, PROCESS_SECRETS, redactSecrets } from './redaction';

/** A key shape: the text around it, the secret part that must go, and what must stay. */
export interface KeyShapeCase {
    name: string;
    input: string;
    secret: string;
    kept: string[];
}

/** One case per shape redaction masks without knowing the value; the attack spec reuses them on saved chats. */
export const KEY_SHAPE_CASES: readonly KeyShapeCase[] = [
    { name: 'Authorization: Bearer header', input: 'sent Authorization: Bearer tok_live_123456 to the proxy', secret: 'tok_live_123456', kept: ['sent Authorization: Bearer ', ' to the proxy'] },
    { name: 'JSON "Authorization": "Bearer …"', input: '{"Authorization": "Bearer eyJhbGciOi.J9xx.sig42", "accept": "json"}', secret: 'eyJhbGciOi.J9xx.sig42', kept: ['{"Authorization": "Bearer ', '", "accept": "json"}'] },
    { name: 'JSON "authorization":"Basic …"', input: '{"authorization":"Basic dXNlcjpwYXNzd29yZA=="}', secret: 'dXNlcjpwYXNzd29yZA==', kept: ['{"authorization":"Basic ', '"}'] },
    { name: 'bare Bearer token', input: 'retrying with Bearer 9f8e7d6c5b4a39281706 now', secret: '9f8e7d6c5b4a39281706', kept: ['retrying with Bearer ', ' now'] },
    { name: '?key= query string', input: 'GET https://generativelanguage.googleapis.com/v1/models?key=Zx81kd02Lq&alt=sse failed', secret: 'Zx81kd02Lq', kept: ['/v1/models?key=', '&alt=sse failed'] },
    { name: '&key= query string', input: 'url https://h.example/v1?alt=sse&key=Qm2k9x0d7Z done', secret: 'Qm2k9x0d7Z', kept: ['?alt=sse&key=', ' done'] },
    { name: 'api_key= query string', input: 'https://h.example/q?api_key=abcdef998877&page=2', secret: 'abcdef998877', kept: ['?api_key=', '&page=2'] },
    { name: 'access_token= query string', input: 'https://h.example/q?page=1&access_token=ya29.a0AfH6SM&x=1', secret: 'ya29.a0AfH6SM', kept: ['&access_token=', '&x=1'] },
    { name: 'token= query string', input: 'wss://h.example/socket?token=c0ffee1234567 closed', secret: 'c0ffee1234567', kept: ['/socket?token=', ' closed'] },
    { name: 'x-api-key JSON header', input: '{"x-api-key": "secret-value-9", "n": 1}', secret: 'secret-value-9', kept: ['{"x-api-key": "', '", "n": 1}'] },
    { name: 'x-goog-api-key header', input: 'x-goog-api-key: qwerty-uiop-77 sent', secret: 'qwerty-uiop-77', kept: ['x-goog-api-key: ', ' sent'] },
    { name: 'JSON "client_secret" field', input: '{"client_id": "app", "client_secret": "s3cr3t-of-the-app"}', secret: 's3cr3t-of-the-app', kept: ['{"client_id": "app", "client_secret": "', '"}'] },
    { name: 'Google AIza key', input: 'key AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7 in config', secret: 'SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7', kept: ['key AIza', ' in config'] },
    { name: 'GitHub ghp_ token', input: 'GH ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5 used', secret: 'aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5', kept: ['GH ghp_', ' used'] },
    { name: 'GitHub gho_ token', input: 'oauth gho_16C7e42F292c6912E7710c838347Ae178B4a.', secret: '16C7e42F292c6912E7710c838347Ae178B4a', kept: ['oauth gho_', '.'] },
    { name: 'GitHub ghu_ token', input: '(ghu_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8)', secret: 'Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8', kept: ['(ghu_', ')'] },
    { name: 'GitHub ghs_ token', input: 'app ghs_0123456789abcdefABCDEF0123456789ab ok', secret: '0123456789abcdefABCDEF0123456789ab', kept: ['app ghs_', ' ok'] },
    { name: 'GitHub ghr_ token', input: 'refresh=ghr_1B4a2e77838347a7E420ce178F2E7c6912E1 end', secret: '1B4a2e77838347a7E420ce178F2E7c6912E1', kept: ['refresh=ghr_', ' end'] },
    { name: 'GitHub github_pat_ token', input: 'pat github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz here', secret: '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', kept: ['pat github_pat_', ' here'] },
    { name: 'OpenAI sk- key', input: 'OPENAI key sk-T3BlbkFJabcdefghijklmnopqrst1234 set', secret: 'T3BlbkFJabcdefghijklmnopqrst1234', kept: ['OPENAI key sk-', ' set'] },
    { name: 'OpenAI sk-proj- key', input: 'used sk-proj-ABCDEFGHIJKLMNOP today', secret: 'ABCDEFGHIJKLMNOP', kept: ['used sk-proj-', ' today'] },
    { name: 'Anthropic sk-ant- key', input: '"sk-ant-api03-Zq8xW7vU6tS5rQ4pO3nM2lK1jI0hG9f-AA" rejected', secret: 'Zq8xW7vU6tS5rQ4pO3nM2lK1jI0hG9f-AA', kept: ['"sk-ant-api03-', '" rejected'] },
    { name: 'OpenRouter sk-or-v1- key', input: 'router sk-or-v1-0a1b2c3d4e5f60718293a4b5c6d7e8f9 refused', secret: '0a1b2c3d4e5f60718293a4b5c6d7e8f9', kept: ['router sk-or-v1-', ' refused'] }
];

describe('redactSecrets', () => {
    for (const shape of KEY_SHAPE_CASES) {
        it(`masks a ${shape.name} and keeps the text around it`, () => {
            const output = redactSecrets(shape.input);
            assert.ok(!output.includes(shape.secret), `${output} still contains ${shape.secret}`);
            assert.match(output, /\[REDACTED\]/);
            for (const kept of shape.kept) {
                assert.ok(output.includes(kept), `${output} lost ${JSON.stringify(kept)}`);
            }
        });
    }

    it('masks a known value anywhere, also without a key shape', () => {
        assert.equal(redactSecrets('key is abcd1234efgh in text', ['abcd1234efgh']), 'key is [REDACTED] in text');
    });

    it('masks a known value as it is spelled inside JSON and in a URL', () => {
        const secret = 'pa"ss/wo+rd=1';
        const output = redactSecrets(`${JSON.stringify({ k: secret })} https://h.example/?q=${encodeURIComponent(secret)}`, [secret]);
        assert.equal(output, '{"k":"[REDACTED]"} https://h.example/?q=[REDACTED]');
    });

    it('masks the longer of two known values whole when one contains the other', () => {
        assert.equal(redactSecrets('x plain-secret-value-long y', ['plain-secret', 'plain-secret-value-long']), 'x [REDACTED] y');
    });

    it('masks every value recorded in the process-wide set, also when the caller passes none', () => {
        PROCESS_SECRETS.add('process-wide-0f9e8d7c');
        assert.equal(redactSecrets('upstream said process-wide-0f9e8d7c is wrong'), 'upstream said [REDACTED] is wrong');
    });

    it('leaves ordinary text alone, including words near key-like labels', () => {
        const text = 'nothing secret here: max_tokens=100, the bearer of news, task-force-alpha-bravo-charlie, {"token": "Hello"}';
        assert.equal(redactSecrets(text), text);
    });
});

describe('KnownSecrets', () => {
    it('redacts what was added and ignores blank and placeholder-short values', () => {
        const known = new KnownSecrets();
        known.add('  my-long-secret-1  ');
        known.add('ollama');
        known.add(undefined);
        known.add('   ');
        assert.deepEqual(known.list(), ['my-long-secret-1']);
        assert.equal(known.redact('ollama with my-long-secret-1'), 'ollama with [REDACTED]');
    });
});
