import * as assert from 'node:assert/strict';
import type { McpCatalog, McpContentPart, McpPromptResult, QodeAssistMcpFeaturesService } from '../../common/mcp-features-protocol';
import { ComposerSuggestions, ComposerSuggestionsHost } from './chat-composer-suggestions';

const CATALOG: McpCatalog = {
    resources: [], templates: [],
    prompts: [
        { server: 'git', name: 'review', command: '/mcp.git.review', description: 'Review a change', arguments: [{ name: 'ref', required: true, description: 'The commit' }, { name: 'focus', required: false }] },
        { server: 'git', name: 'status', command: '/mcp.git.status', description: 'Summarize the status', arguments: [] }
    ]
};
const DIFF: McpContentPart = { name: 'git:diff', uri: 'git://diff', mediaType: 'text/x-diff', base64: Buffer.from('+a').toString('base64') };

/** A text area as far as the composer uses one. */
class FakeInput {
    value = '';
    selectionStart = 0;
    focused = 0;
    setSelectionRange(start: number): void { this.selectionStart = start; }
    focus(): void { this.focused++; }
}

/** A composer with a text area, a features service that records `getPrompt`, and what was attached and reported. */
async function composerWith(options: { external?: boolean; failPrompt?: string; completing?: Array<(values: string[]) => void> } = {}) {
    const input = new FakeInput();
    const gotPrompts: Array<[string, string, Record<string, string>]> = [];
    const attached: string[] = [];
    const problems: Array<string | undefined> = [];
    const completions: Array<[string, string, string, string, Record<string, string>]> = [];
    const features: Partial<QodeAssistMcpFeaturesService> = {
        catalog: async () => CATALOG,
        getPrompt: async (_workspace, server, prompt, values): Promise<McpPromptResult> => {
            gotPrompts.push([server, prompt, values]);
            if (options.failPrompt) {
                throw new Error(`Request failed: ${options.failPrompt}`);
            }
            return { text: `Review ${values.ref ?? 'everything'}`, attachments: [DIFF] };
        },
        completePromptArgument: (_workspace, server, prompt, argument, value, values) => {
            completions.push([server, prompt, argument, value, values]);
            // Held until the spec answers, when it asks to; otherwise the branches starting with the value.
            return options.completing ? new Promise(resolve => options.completing!.push(resolve)) : Promise.resolve(['main', 'maintenance'].filter(branch => branch.startsWith(value)));
        }
    };
    const host: ComposerSuggestionsHost = {
        composer: {
            inputElement: input as unknown as HTMLTextAreaElement, workspacePath: '/work/app', agentSession: undefined,
            externalAgent: () => options.external === true, relativePath: path => path,
            setDraft: text => { input.value = text; }, scheduleEstimate: () => undefined, showProblem: reason => { problems.push(reason); }
        },
        skills: () => [], update: () => undefined,
        attach: async part => { attached.push(part.name); },
        chatService: { findFiles: async () => [] } as never, mcpFeatures: features as QodeAssistMcpFeaturesService,
        editors: { all: [] } as never, preferences: {} as never, quickInput: {} as never
    };
    const suggest = new ComposerSuggestions(host);
    await suggest.loadMcpOffers();
    const type = async (text: string) => {
        input.value = text;
        input.selectionStart = text.length;
        await suggest.update();
    };
    return { suggest, input, gotPrompts, attached, problems, completions, type };
}

describe('MCP prompts in the composer: arguments asked in place', () => {
    it('choosing a prompt puts its command in the draft and opens its form; nothing is asked of the server until Enter', async () => {
        const { suggest, input, gotPrompts, type } = await composerWith();
        await type('/mcp.git.re');
        assert.deepEqual(suggest.suggestions?.items.map(item => item.value), ['mcp.git.review']);
        suggest.choose('mcp.git.review');
        assert.equal(input.value, '/mcp.git.review ');
        assert.equal(suggest.suggestions, undefined);
        assert.deepEqual(suggest.promptForm?.offer.arguments.map(argument => argument.name), ['ref', 'focus']);
        assert.equal(suggest.promptForm?.field, 0);
        assert.deepEqual(gotPrompts, []);
    });

    it('Enter with a required argument empty names it and runs nothing; filled, the prompt replaces the command', async () => {
        const { suggest, input, gotPrompts, attached, type } = await composerWith();
        await type('/mcp.git.re');
        suggest.choose('mcp.git.review');
        await suggest.runPrompt();
        assert.equal(suggest.promptForm?.problem, '"ref" is required by /mcp.git.review: fill it in, or press Escape to cancel.');
        assert.deepEqual(gotPrompts, []);
        suggest.setArgument('ref', 'HEAD~1');
        suggest.setArgument('focus', '');
        assert.equal(suggest.promptForm?.problem, undefined);
        await suggest.runPrompt();
        assert.deepEqual(gotPrompts, [['git', 'review', { ref: 'HEAD~1' }]], 'an optional argument left empty is not sent');
        assert.equal(input.value, 'Review HEAD~1');
        assert.deepEqual(attached, ['git:diff']);
        assert.equal(suggest.promptForm, undefined);
        assert.ok(input.focused > 0, 'the text area has the focus again');
    });

    it('words typed in the message box while the form is open follow the prompt\'s text', async () => {
        const { suggest, input, type } = await composerWith();
        await type('/mcp.git.re');
        suggest.choose('mcp.git.review');
        suggest.setArgument('ref', 'v2');
        input.value = '/mcp.git.review and check the docs';
        await suggest.runPrompt();
        assert.equal(input.value, 'Review v2\n\nand check the docs');
    });

    it('Escape cancels: the form goes, the server is not asked, the command stays to edit', async () => {
        const { suggest, input, gotPrompts, type } = await composerWith();
        await type('/mcp.git.re');
        suggest.choose('mcp.git.review');
        suggest.setArgument('ref', 'HEAD');
        suggest.cancelPrompt();
        assert.equal(suggest.promptForm, undefined);
        assert.deepEqual(gotPrompts, []);
        assert.equal(input.value, '/mcp.git.review ');
    });

    it('a prompt without arguments runs as soon as it is chosen', async () => {
        const { suggest, input, gotPrompts, type } = await composerWith();
        await type('/mcp.git.st');
        suggest.choose('mcp.git.status');
        await new Promise(resolve => setImmediate(resolve));
        assert.deepEqual(gotPrompts, [['git', 'status', {}]]);
        assert.equal(input.value, 'Review everything');
    });

    it('the server\'s refusal stays in the form, which keeps what was typed', async () => {
        const { suggest, input, type } = await composerWith({ failPrompt: 'Unknown ref "nope"' });
        await type('/mcp.git.re');
        suggest.choose('mcp.git.review');
        suggest.setArgument('ref', 'nope');
        await suggest.runPrompt();
        assert.equal(suggest.promptForm?.problem, 'Unknown ref "nope"');
        assert.deepEqual(suggest.promptForm?.values, { ref: 'nope' });
        assert.equal(input.value, '/mcp.git.review ');
    });
});

describe('MCP prompt arguments completed by the server', () => {
    const settle = () => new Promise(resolve => setImmediate(resolve));

    it('typing in a field asks the server with the value and the other arguments, and offers what it answers', async () => {
        const { suggest, completions, type } = await composerWith();
        await type('/mcp.git.re');
        suggest.choose('mcp.git.review');
        suggest.setArgument('focus', 'tests');
        suggest.setArgument('ref', 'ma');
        await settle();
        assert.deepEqual(completions.at(-1), ['git', 'review', 'ref', 'ma', { focus: 'tests', ref: 'ma' }]);
        assert.deepEqual(suggest.promptForm?.completions, { argument: 'ref', values: ['main', 'maintenance'] });
    });

    it('an answer for older text that comes late does not replace the newer one', async () => {
        const completing: Array<(values: string[]) => void> = [];
        const { suggest, type } = await composerWith({ completing });
        await type('/mcp.git.re');
        suggest.choose('mcp.git.review');
        suggest.setArgument('ref', 'm');
        suggest.setArgument('ref', 'mai');
        completing[1](['main']);
        await settle();
        completing[0](['main', 'master', 'maintenance']);
        await settle();
        assert.deepEqual(suggest.promptForm?.completions, { argument: 'ref', values: ['main'] });
    });
});

describe('MCP prompts typed with their arguments', () => {
    const settle = () => new Promise(resolve => setImmediate(resolve));

    it('send with `/mcp.git.review ref=… "focus=…" words` runs the prompt with those values; the words follow its text', async () => {
        const { suggest, input, gotPrompts, type } = await composerWith();
        await type('/mcp.git.review ref=main "focus=the parser" keep it short');
        assert.equal(suggest.expandTyped(), true);
        await settle();
        assert.deepEqual(gotPrompts, [['git', 'review', { ref: 'main', focus: 'the parser' }]]);
        assert.equal(input.value, 'Review main\n\nkeep it short');
    });

    it('a required argument not typed opens the form with what was typed, naming the missing one', async () => {
        const { suggest, gotPrompts, type } = await composerWith();
        await type('/mcp.git.review focus=tests');
        assert.equal(suggest.expandTyped(), true);
        assert.deepEqual(suggest.promptForm?.values, { focus: 'tests' });
        assert.equal(suggest.promptForm?.problem, '"ref" is required by /mcp.git.review: fill it in, or press Escape to cancel.');
        assert.deepEqual(gotPrompts, []);
    });

    it('Enter in the text area while the form is open keeps the form\'s values', async () => {
        const { suggest, gotPrompts, type } = await composerWith();
        await type('/mcp.git.re');
        suggest.choose('mcp.git.review');
        suggest.setArgument('ref', 'v2');
        assert.equal(suggest.expandTyped(), true);
        await settle();
        assert.deepEqual(gotPrompts, [['git', 'review', { ref: 'v2' }]]);
    });

    it('an unknown argument or prompt is reported, not sent to the model', async () => {
        const { suggest, gotPrompts, problems, type } = await composerWith();
        await type('/mcp.git.review ref=x colour=red');
        assert.equal(suggest.expandTyped(), true);
        await type('/mcp.git.rebase ref=x');
        assert.equal(suggest.expandTyped(), true);
        assert.deepEqual(problems, [
            '/mcp.git.review has no argument "colour"; it takes ref, focus.',
            'No MCP server offers /mcp.git.rebase; type / to see the prompts of the ready servers (Settings → MCP shows why a server is not ready).'
        ]);
        assert.deepEqual(gotPrompts, []);
    });

    it('an ordinary message, a skill, and an external agent\'s command are sent as typed', async () => {
        const plain = await composerWith();
        for (const text of ['hello', '/review the code']) {
            await plain.type(text);
            assert.equal(plain.suggest.expandTyped(), false, text);
        }
        const external = await composerWith({ external: true });
        await external.type('/mcp.git.review ref=x');
        assert.equal(external.suggest.expandTyped(), false);
    });
});
