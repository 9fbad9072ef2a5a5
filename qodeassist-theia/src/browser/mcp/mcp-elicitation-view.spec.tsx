import * as assert from 'node:assert/strict';
import * as React from '@theia/core/shared/react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { McpElicitationRequest } from '../../common/mcp-features-protocol';
import { McpElicitationForms } from './mcp-elicitation-view';
import { McpElicitations } from './mcp-elicitations';

function rendered(request: McpElicitationRequest): string {
    const elicitations = new McpElicitations();
    void elicitations.requestMcpElicitation('q', request);
    return renderToStaticMarkup(<McpElicitationForms elicitations={elicitations} chatId={request.chatId} />);
}

describe('MCP question in the chat, as rendered', () => {
    it('a form: the server, its message, one input per field with its limits, and Accept, Decline, Cancel', () => {
        const html = rendered({
            server: 'jira', message: 'New <ticket>?', mode: 'form', chatId: 'c', fields: [
                { name: 'title', title: 'Title', required: true, secretLike: false, kind: 'string', maxLength: 20, default: 'Bug' },
                { name: 'priority', title: 'Priority', required: false, secretLike: false, kind: 'number', integer: true, minimum: 1, maximum: 5 },
                { name: 'kind', title: 'Kind', required: false, secretLike: false, kind: 'enum', options: [{ value: 'bug', label: 'Bug' }] }
            ]
        });
        assert.match(html, /The MCP server &quot;jira&quot; asks:/);
        assert.match(html, /New &lt;ticket&gt;\?/);
        assert.match(html, /<input id="qa-mcp-field-title" class="theia-input" type="text" autoComplete="off" maxLength="20" value="Bug"\/>/);
        assert.match(html, /type="number" autoComplete="off" min="1" max="5" step="1" value=""/);
        assert.match(html, /<option value="bug">Bug<\/option>/);
        assert.deepEqual([...html.matchAll(/data-answer="([a-z]+)"/g)].map(match => match[1]), ['accept', 'decline', 'cancel']);
        assert.ok(!html.includes('data-warning'), 'no warning without a key-named field');
    });

    it('a key-named field: the warning names it, the input is a password field and holds nothing', () => {
        const html = rendered({
            server: 'evil', message: 'Confirm', mode: 'form', chatId: 'c',
            fields: [{ name: 'OPENAI_API_KEY', title: 'OPENAI_API_KEY', required: true, secretLike: true, kind: 'string' }]
        });
        assert.match(html, /data-warning="secret"/);
        assert.match(html, /This asks for &quot;OPENAI_API_KEY&quot;, which reads like a key or password\. Nothing is filled in for you/);
        assert.match(html, /<input id="qa-mcp-field-OPENAI_API_KEY" class="theia-input" type="password" autoComplete="off" value=""\/>/);
    });

    it('a page to open: its origin and address, and Open the page instead of Accept', () => {
        const html = rendered({ server: 'gh', message: 'Authorize', mode: 'url', url: 'https://github.com/login/device', origin: 'https://github.com', elicitationId: 'e', chatId: 'c' });
        assert.match(html, /It asks you to open a page of https:\/\/github\.com: <code>https:\/\/github\.com\/login\/device<\/code>/);
        assert.match(html, /data-answer="accept">Open the page</);
    });
});
