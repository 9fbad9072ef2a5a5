import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { QodeAssistError } from '../wire/error-info';
import { FeatureServerFixture, sdkShape } from './mcp-features.spec-support';

describe('MCP prompt arguments completed by the server', function () {
    this.timeout(30_000);
    let fixture: FeatureServerFixture;
    afterEach(() => fixture.dispose());

    it('asks completion/complete with what is typed and the prompt\'s other arguments as context, nothing else', async () => {
        const contexts: unknown[] = [];
        fixture = new FeatureServerFixture(server => {
            // The SDK's `completable` wraps the zod schema it is given; this package's zod 4 is what it checks at run time.
            const complete = (value: string, context?: { arguments?: Record<string, string> }) => {
                contexts.push(context?.arguments);
                return ['main', 'maintenance', 'v1'].filter(branch => branch.startsWith(value));
            };
            const ref = completable(z.string() as never, complete as never);
            server.registerPrompt('review', { description: 'Review a branch', argsSchema: sdkShape({ ref, focus: z.string().optional() }) }, async args => ({
                messages: [{ role: 'user', content: { type: 'text', text: `Review ${String(args.ref)}` } }]
            }));
        });
        const hub = await fixture.start();
        assert.deepEqual(await hub.features.completePromptArgument('srv', 'review', 'ref', 'ma', { focus: 'tests', smuggled: 'x', ref: 'ignored' }), ['main', 'maintenance']);
        assert.deepEqual(contexts, [{ focus: 'tests' }]);
    });

    it('a server that offers no completions gives none; an argument the prompt does not have is a typed error', async () => {
        fixture = new FeatureServerFixture(server => {
            server.registerPrompt('plain', { description: 'No completions', argsSchema: sdkShape({ file: z.string() }) }, async () => ({ messages: [] }));
        });
        const hub = await fixture.start();
        assert.deepEqual(await hub.features.completePromptArgument('srv', 'plain', 'file', 'a', {}), []);
        await assert.rejects(hub.features.completePromptArgument('srv', 'plain', 'colour', 'a', {}), (error: unknown) =>
            error instanceof QodeAssistError && error.info.category === 'Validation' && /has no prompt "plain" with an argument "colour"/.test(error.info.message));
    });
});
