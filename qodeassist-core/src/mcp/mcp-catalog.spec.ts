import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { QodeAssistError } from '../wire/error-info';
import { FeatureServerFixture, sdkShape, until } from './mcp-features.spec-support';
import { PNG_1X1 } from '../wire/tool-result-images.spec-support';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');

describe('MCP hub: resources, templates and prompts of a real SDK server', function () {
    this.timeout(30_000);
    let fixture: FeatureServerFixture;

    beforeEach(async () => {
        fixture = new FeatureServerFixture(server => {
            server.registerResource('readme', 'docs://readme.md', { mimeType: 'text/markdown', description: 'The readme' }, async uri => ({
                contents: [{ uri: uri.href, mimeType: 'text/markdown', text: '# Read me' }]
            }));
            server.registerResource('huge', 'docs://huge.txt', { mimeType: 'text/plain' }, async uri => ({
                contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'x'.repeat(600 * 1024) }]
            }));
            server.registerResource('logo', 'docs://logo.png', { mimeType: 'image/png' }, async uri => ({
                contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG }]
            }));
            server.registerResource('ticket', new ResourceTemplate('tickets://{project}/{id}', { list: undefined }), { description: 'A ticket' }, async (uri, variables) => ({
                contents: [{ uri: uri.href, text: `ticket ${String(variables.id)} of ${String(variables.project)}` }]
            }));
            server.registerPrompt('review', { description: 'Review a file', argsSchema: sdkShape({ file: z.string(), focus: z.string().optional() }) }, async args => ({
                messages: [
                    { role: 'user', content: { type: 'text', text: `Review ${args.file}${args.focus ? ` for ${args.focus}` : ''}` } },
                    { role: 'user', content: { type: 'image', mimeType: 'image/png', data: PNG } },
                    { role: 'user', content: { type: 'resource', resource: { uri: 'docs://style.md', mimeType: 'text/markdown', text: 'Use tabs.' } } }
                ]
            }));
        });
    });
    afterEach(() => fixture.dispose());

    it('lists resources, templates (with their arguments) and prompts (as /mcp.<server>.<prompt>), and counts them in the state', async () => {
        const hub = await fixture.start();
        const catalog = hub.features.catalog();
        assert.deepEqual(catalog.resources.map(resource => [resource.uri, resource.name, resource.mimeType]).sort(), [
            ['docs://huge.txt', 'huge', 'text/plain'], ['docs://logo.png', 'logo', 'image/png'], ['docs://readme.md', 'readme', 'text/markdown']
        ]);
        assert.deepEqual(catalog.templates.map(template => [template.server, template.name, template.uriTemplate, template.arguments]), [['srv', 'ticket', 'tickets://{project}/{id}', ['project', 'id']]]);
        assert.deepEqual(catalog.prompts, [{
            server: 'srv', name: 'review', command: '/mcp.srv.review', description: 'Review a file',
            arguments: [{ name: 'file', required: true }, { name: 'focus', required: false }]
        }]);
        const [state] = hub.states();
        assert.equal(state.prompts, 1);
        assert.equal(state.resources, 4);
    });

    it('reads a text resource as an attachment, and an image as an image', async () => {
        const hub = await fixture.start();
        const [readme] = await hub.features.readResource('srv', 'docs://readme.md');
        assert.deepEqual(readme, { name: 'srv:readme.md', uri: 'docs://readme.md', mediaType: 'text/markdown', base64: Buffer.from('# Read me').toString('base64') });
        const [logo] = await hub.features.readResource('srv', 'docs://logo.png');
        assert.equal(logo.mediaType, 'image/png');
        assert.equal(logo.base64, PNG);
    });

    it('a resource over the attachment limit for text (512 KB) is refused with its size and the limit, like a file', async () => {
        const hub = await fixture.start();
        await assert.rejects(hub.features.readResource('srv', 'docs://huge.txt'), (error: unknown) =>
            error instanceof QodeAssistError && error.info.category === 'Validation' && /about 600 KB; the chat takes files up to 512 KB/.test(error.message));
    });

    it('a template is read with the user\'s arguments; a missing argument and a URI the server did not offer are refused', async () => {
        const hub = await fixture.start();
        const [ticket] = await hub.features.readTemplate('srv', 'ticket', { project: 'web', id: '42' });
        assert.equal(Buffer.from(ticket.base64, 'base64').toString(), 'ticket 42 of web');
        assert.equal(ticket.uri, 'tickets://web/42');
        await assert.rejects(hub.features.readTemplate('srv', 'ticket', { project: 'web' }), /needs "id"; fill them in/);
        await assert.rejects(hub.features.readResource('srv', 'file:///etc/passwd'), /does not offer the resource file:\/\/\/etc\/passwd/);
    });

    it('a prompt is got with its arguments and comes back as returned: text, the image and the embedded resource as attachments', async () => {
        const hub = await fixture.start();
        const result = await hub.features.getPrompt('srv', 'review', { file: 'src/a.ts', focus: 'naming', unasked: 'dropped' });
        assert.equal(result.text, 'Review src/a.ts for naming');
        assert.deepEqual(result.attachments.map(part => [part.name, part.mediaType]), [['srv:review image 1', 'image/png'], ['srv:style.md', 'text/markdown']]);
        assert.equal(Buffer.from(result.attachments[1].base64, 'base64').toString(), 'Use tabs.');
        await assert.rejects(hub.features.getPrompt('srv', 'review', {}), /\/mcp\.srv\.review needs "file"/);
    });
});

describe('MCP hub: list_changed, roots and rich tool results', function () {
    this.timeout(30_000);
    let fixture: FeatureServerFixture;
    afterEach(() => fixture.dispose());

    it('a tool, a prompt and a resource the server adds after connecting are offered without a reconnect', async () => {
        fixture = new FeatureServerFixture(server => {
            server.registerTool('grow', { description: 'Adds a tool, a prompt and a resource' }, async () => {
                server.registerTool('added', { description: 'Added later' }, async () => ({ content: [{ type: 'text', text: 'added ran' }] }));
                server.registerPrompt('later', { description: 'Added later' }, async () => ({ messages: [] }));
                server.registerResource('later', 'docs://later', {}, async uri => ({ contents: [{ uri: uri.href, text: 'later' }] }));
                return { content: [{ type: 'text', text: 'grown' }] };
            });
        });
        const hub = await fixture.start();
        let changes = 0;
        hub.onDidChange(() => changes++);
        assert.deepEqual(hub.tools().map(tool => tool.name), ['mcp_srv_grow']);
        await fixture.run('grow');
        await until(() => hub.tools().length === 2 && hub.features.catalog().prompts.length === 1 && hub.features.catalog().resources.length === 1, 'the lists to refresh');
        assert.equal((await fixture.run('added')).content, 'added ran');
        assert.equal(fixture.sessions.length, 1, 'one session: no reconnect');
        assert.ok(changes >= 1, 'the hub told its listeners');
        assert.deepEqual(hub.states()[0].tools, ['grow', 'added']);
    });

    it('roots: the server gets the workspace folders as file:// URIs, and is told when they change', async () => {
        const received: string[][] = [];
        let told = 0;
        fixture = new FeatureServerFixture(server => {
            server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => { told++; });
            server.registerTool('roots', { description: 'Lists the client roots' }, async () => {
                const { roots } = await server.server.listRoots();
                received.push(roots.map(root => root.uri));
                return { content: [{ type: 'text', text: roots.map(root => root.name).join(',') }] };
            });
        });
        const first = join(fixture.root, 'app');
        const second = join(fixture.root, 'lib');
        mkdirSync(first);
        mkdirSync(second);
        const hub = await fixture.start({ roots: [first] });
        assert.equal((await fixture.run('roots')).content, 'app');
        await hub.features.setRoots([first, second]);
        await until(() => told === 1, 'roots/list_changed');
        assert.equal((await fixture.run('roots')).content, 'app,lib');
        assert.deepEqual(received, [[pathToFileURL(first).href], [pathToFileURL(first).href, pathToFileURL(second).href]]);
        await hub.features.setRoots([first, second]);
        await new Promise(resolve => setTimeout(resolve, 200));
        assert.equal(told, 1, 'the same folders again are not a change');
    });

    it('a tool result keeps structured content, image and resource links instead of flattening them away', async () => {
        fixture = new FeatureServerFixture(server => {
            server.registerTool('report', { description: 'A rich result', outputSchema: sdkShape({ count: z.number(), items: z.array(z.string()) }) }, async () => ({
                content: [
                    { type: 'text', text: 'Two items.' },
                    { type: 'image', mimeType: 'image/png', data: PNG_1X1 },
                    { type: 'resource_link', uri: 'docs://readme.md', name: 'readme', mimeType: 'text/markdown', description: 'The readme' }
                ],
                structuredContent: { count: 2, items: ['a', 'b'] }
            }));
        });
        await fixture.start();
        const result = await fixture.run('report');
        assert.equal(result.content, [
            'Two items.',
            `[image image/png, ${Buffer.from(PNG_1X1, 'base64').length} bytes]`,
            '[resource link docs://readme.md ("readme", text/markdown, The readme)]',
            '[structured content]\n{\n  "count": 2,\n  "items": [\n    "a",\n    "b"\n  ]\n}'
        ].join('\n'));
    });
});
