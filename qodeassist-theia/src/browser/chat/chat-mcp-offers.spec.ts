import * as assert from 'node:assert/strict';
import type { McpCatalog, McpContentPart, McpPromptResult } from '../../common/mcp-features-protocol';
import { ChatMcpOffers, chooseMcpOffer, McpOffer, McpOfferHost, partBytes } from './chat-mcp-offers';

const CATALOG: McpCatalog = {
    resources: [{ server: 'docs', uri: 'docs://readme.md', name: 'readme', mimeType: 'text/markdown' }],
    templates: [{ server: 'jira', uriTemplate: 'tickets://{project}/{id}', name: 'ticket', arguments: ['project', 'id'] }],
    prompts: [{ server: 'git', name: 'review', command: '/mcp.git.review', description: 'Review a change', arguments: [{ name: 'ref', required: true }, { name: 'focus', required: false }] }]
};

const PART: McpContentPart = { name: 'docs:readme.md', uri: 'docs://readme.md', mediaType: 'text/markdown', base64: Buffer.from('# Hi').toString('base64') };

/** A composer that records what choosing did; `answers` are what the user types at each argument (undefined: gave up). */
function recordingHost(answers: Array<string | undefined>) {
    const done: string[] = [];
    const host: McpOfferHost = {
        read: async offer => { done.push(`read ${offer.uri}`); return [PART]; },
        readTemplate: async (offer, values) => { done.push(`template ${offer.name} ${JSON.stringify(values)}`); return [PART]; },
        getPrompt: async (offer, values): Promise<McpPromptResult> => {
            done.push(`prompt ${offer.name} ${JSON.stringify(values)}`);
            return { text: 'Review HEAD', attachments: [{ ...PART, name: 'git:diff' }] };
        },
        ask: async (_offer, argument) => { done.push(`ask ${argument.name}`); return answers.shift(); },
        attach: async part => { done.push(`attach ${part.name}`); },
        insert: result => { done.push(`insert ${result.text}`); }
    };
    return { host, done };
}

describe('MCP offers in the chat composer', () => {
    const offers = new ChatMcpOffers();
    offers.set(CATALOG);

    it('offers resources and templates on @ as <server>:<uri>, prompts on / as mcp.<server>.<prompt>', () => {
        assert.deepEqual(offers.mentions(''), [
            { value: 'docs:docs://readme.md', detail: 'MCP readme' },
            { value: 'jira:tickets://{project}/{id}', detail: 'MCP ticket: asks project, id' }
        ]);
        assert.deepEqual(offers.mentions('read').map(item => item.value), ['docs:docs://readme.md']);
        assert.deepEqual(offers.commands('mcp.g'), [{ value: 'mcp.git.review', detail: 'MCP prompt: Review a change' }]);
        assert.deepEqual(offers.commands('review'), []);
    });

    it('a resource is read and attached at once', async () => {
        const { host, done } = recordingHost([]);
        assert.equal(await chooseMcpOffer(offers.offerFor('docs:docs://readme.md')!, host), true);
        assert.deepEqual(done, ['read docs://readme.md', 'attach docs:readme.md']);
    });

    it('a template asks each argument, then reads with them; giving up at one reads nothing', async () => {
        const ticket = offers.offerFor('jira:tickets://{project}/{id}') as McpOffer;
        const first = recordingHost(['web', '42']);
        assert.equal(await chooseMcpOffer(ticket, first.host), true);
        assert.deepEqual(first.done, ['ask project', 'ask id', 'template ticket {"project":"web","id":"42"}', 'attach docs:readme.md']);
        const second = recordingHost(['web', undefined]);
        assert.equal(await chooseMcpOffer(ticket, second.host), false);
        assert.deepEqual(second.done, ['ask project', 'ask id']);
    });

    it('a prompt asks its arguments (an optional one may stay empty), inserts its text and attaches what came with it', async () => {
        const { host, done } = recordingHost(['HEAD', '']);
        assert.equal(await chooseMcpOffer(offers.offerFor('mcp.git.review')!, host), true);
        assert.deepEqual(done, ['ask ref', 'ask focus', 'prompt review {"ref":"HEAD"}', 'insert Review HEAD', 'attach git:diff']);
    });

    it('a part\'s base64 becomes its bytes', () => {
        assert.equal(new TextDecoder().decode(partBytes(PART)), '# Hi');
    });
});
