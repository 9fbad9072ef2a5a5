import * as assert from 'node:assert/strict';
import { PNG_1X1 } from '../wire/tool-result-images.spec-support';
import { ContentLoader } from './content-loader';
import { AssembleInput, ContextAssembler } from './context-assembler';
import { HistoryMessage } from './conversation-history';
import { IMAGE_TOKENS, TokenEstimator } from './token-estimator';

describe('ContextAssembler: the images a tool returned', () => {
    // One char per token: the figures below are exact.
    const assemble = (history: HistoryMessage[], overrides: Partial<AssembleInput> = {}) => new ContextAssembler(new TokenEstimator(1), new ContentLoader()).assemble({
        layers: [], history, pinned: [], tools: [], budget: { contextWindow: 100_000, maxOutputTokens: 1_000 }, estimatorKey: 'k', ...overrides
    });
    const described = '[image image/png, 69 bytes]';
    const round = (id: string): HistoryMessage[] => [
        { role: 'assistant', blocks: [{ type: 'tool_use', id, name: 'mcp_web_screenshot', input: {} }] },
        { role: 'user', blocks: [{ type: 'tool_result', toolUseId: id, name: 'mcp_web_screenshot', content: described, isError: false, images: [{ mediaType: 'image/png', data: PNG_1X1 }] }] }
    ];
    const history: HistoryMessage[] = [{ role: 'user', blocks: [{ type: 'text', text: 'look' }] }, ...round('call-1')];

    it('an agent that takes images gets them on the tool result, beside the text that describes them, and the estimate counts each', async () => {
        const { ctx, manifest } = await assemble(history);
        assert.deepEqual(ctx.history[2].content, [{
            type: 'tool_result', tool_use_id: 'call-1', name: 'mcp_web_screenshot', content: described, is_error: false, images: [{ media_type: 'image/png', data: PNG_1X1 }]
        }]);
        assert.equal(manifest.estimate, 'look'.length + 'mcp_web_screenshot'.length + 2 + described.length + IMAGE_TOKENS);
    });

    it('an agent that takes no images gets the description only, never the bytes, and the manifest says why', async () => {
        const { ctx, manifest } = await assemble(history, { imagelessAgent: 'deepseek-chat' });
        assert.deepEqual(ctx.history[2].content, [{ type: 'tool_result', tool_use_id: 'call-1', name: 'mcp_web_screenshot', content: described, is_error: false }]);
        assert.ok(!JSON.stringify(ctx).includes(PNG_1X1));
        assert.deepEqual(manifest.filters, [{ kind: 'image_not_taken', detail: '1 image(s) from mcp_web_screenshot (deepseek-chat takes no images)' }]);
        assert.equal(manifest.refusal, undefined, 'a tool\'s image never refuses the turn');
    });

    it('over budget, an old round\'s images are elided before whole rounds, saying so in the result and the manifest', async () => {
        const long: HistoryMessage[] = [...history, { role: 'assistant', blocks: [{ type: 'text', text: 'seen' }] }, { role: 'user', blocks: [{ type: 'text', text: 'again' }] }, ...round('call-2'), ...round('call-3')];
        // Every round kept from stage 1: the images are what goes first.
        const { ctx, manifest } = await assemble(long, { budget: { contextWindow: 1_000 + 2 * IMAGE_TOKENS + 400, maxOutputTokens: 1_000, keepRecentToolRounds: 10 } });
        const first = ctx.history[2].content[0];
        assert.ok(first.type === 'tool_result');
        assert.equal(first.images, undefined);
        assert.equal(first.content, `${described}\n[1 image(s) the tool returned elided to fit the context]`);
        assert.deepEqual(manifest.elisions.filter(elision => elision.kind === 'image'), [{ kind: 'image', detail: 'image/png from mcp_web_screenshot', tokens: IMAGE_TOKENS }]);
        const last = ctx.history[ctx.history.length - 1].content[0];
        assert.ok(last.type === 'tool_result' && last.images?.length === 1, 'the latest round keeps its image');
    });

    it('an old tool result elided whole takes its images with it', async () => {
        const long: HistoryMessage[] = [...history, ...round('call-2'), ...round('call-3')];
        const { ctx, manifest } = await assemble(long, { budget: { contextWindow: 1_000 + 2 * IMAGE_TOKENS + 400, maxOutputTokens: 1_000 } });
        const first = ctx.history[2].content[0];
        assert.ok(first.type === 'tool_result');
        assert.deepEqual([first.content, first.images], [`[tool result elided (old) — ${described.length + IMAGE_TOKENS} tokens]`, undefined]);
        assert.equal(manifest.elisions[0].tokens, described.length + IMAGE_TOKENS);
    });
});
