import * as assert from 'node:assert/strict';
import { RequestError } from '@agentclientprotocol/sdk';
import { QodeAssistError } from '../wire/error-info';
import { requestErrorFromInfo, requestErrorOf } from './request-errors';

describe('requestErrorOf', () => {
    it('the client\'s own mistake is invalid params, a refused key "authentication required", the rest an internal error; the category goes along', () => {
        assert.equal(requestErrorOf(new QodeAssistError({ category: 'Validation', message: 'The prompt is empty.' })).code, -32602);
        assert.equal(requestErrorFromInfo({ category: 'Auth', message: 'Set ANTHROPIC_API_KEY.', status: 401 }).code, -32000);
        const network = requestErrorFromInfo({ category: 'Network', message: 'No answer.', providerDetail: 'ECONNREFUSED' });
        assert.equal(network.code, -32603);
        assert.deepEqual(network.data, { category: 'Network', providerDetail: 'ECONNREFUSED' });
    });

    it('keys are redacted from the message and the provider\'s detail', () => {
        const error = requestErrorFromInfo({ category: 'Auth', message: 'Rejected sk-ant-api03-abcdefghijklmnopqrstuvwx', providerDetail: 'key sk-proj-ABCDEFGHIJKLMNOPQRST was wrong' });
        assert.ok(!JSON.stringify({ message: error.message, data: error.data }).includes('abcdefghijklmnop'));
        assert.ok(!JSON.stringify(error.data).includes('ABCDEFGHIJKLMNOP'));
    });

    it('an unexpected exception is an internal error that keeps its message; a JSON-RPC error passes as it is', () => {
        assert.match(requestErrorOf(new Error('boom')).message, /Unexpected failure: boom/);
        const original = RequestError.invalidRequest(undefined, 'busy');
        assert.equal(requestErrorOf(original), original);
    });
});
