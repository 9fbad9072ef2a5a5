import * as assert from 'node:assert/strict';
import { MCP_CONTENT_LIMITS } from '../../mcp/mcp-catalog';
import { ATTACHMENT_LIMITS } from './chat-types';

describe('MCP resources and prompt results are capped like attachments', () => {
    it('the MCP layer\'s restated limits are the chat\'s attachment limits', () => {
        assert.deepEqual(MCP_CONTENT_LIMITS, ATTACHMENT_LIMITS);
    });
});
