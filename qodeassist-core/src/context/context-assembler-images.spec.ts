import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QodeAssistError } from '../wire/error-info';
import { ContentLoader } from './content-loader';
import { AssembleInput, ContextAssembler } from './context-assembler';
import { HistoryMessage } from './conversation-history';
import { IMAGE_TOKENS, TokenEstimator } from './token-estimator';

describe('ContextAssembler: images for an agent that takes none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'qodeassist-images-'));
    const path = join(dir, 'shot.png');
    writeFileSync(path, Buffer.from('89504e470d0a1a0a', 'hex'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const image = { type: 'image' as const, ref: { path, name: 'shot.png', mediaType: 'image/png' } };
    // One char per token: the figures below are exact.
    const assemble = (history: HistoryMessage[], overrides: Partial<AssembleInput> = {}) => new ContextAssembler(new TokenEstimator(1), new ContentLoader()).assemble({
        layers: [], history, pinned: [], tools: [], budget: { contextWindow: 100_000, maxOutputTokens: 1_000 }, estimatorKey: 'k', ...overrides
    });
    const earlier: HistoryMessage[] = [
        { role: 'user', blocks: [image, { type: 'text', text: 'what is this?' }] },
        { role: 'assistant', blocks: [{ type: 'text', text: 'A form.' }] },
        { role: 'user', blocks: [{ type: 'text', text: 'fix it' }] }
    ];

    it('an agent that takes images gets the image, and the estimate counts it', async () => {
        const { ctx, manifest } = await assemble(earlier);
        assert.deepEqual(ctx.history[0].content[0], { type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' });
        assert.equal(manifest.estimate, IMAGE_TOKENS + 'what is this?'.length + 'A form.'.length + 'fix it'.length);
    });

    it('an earlier image goes as a line that says so, recorded as a filter, and the estimate counts that line — not the image', async () => {
        const { ctx, manifest } = await assemble(earlier, { imagelessAgent: 'deepseek-chat' });
        const line = '[image shot.png not sent: deepseek-chat takes no images]';
        assert.deepEqual(ctx.history[0].content[0], { type: 'text', text: line });
        assert.deepEqual(manifest.filters, [{ kind: 'image_not_taken', detail: 'shot.png (deepseek-chat takes no images)' }]);
        assert.equal(manifest.estimate, line.length + 'what is this?'.length + 'A form.'.length + 'fix it'.length);
        assert.equal(manifest.refusal, undefined);
    });

    it('a turn that attaches an image is refused with a Validation error naming the fix; the token counter shows the same refusal', async () => {
        const turn: HistoryMessage[] = [{ role: 'user', blocks: [image, { type: 'text', text: 'what is this?' }] }];
        const expected = 'deepseek-chat takes no images (its request template sends text only, or its file says images = false), so "shot.png" cannot go with this message. '
            + 'Pick an agent that takes images in the chat\'s agent picker, or remove the image.';
        await assert.rejects(assemble(turn, { imagelessAgent: 'deepseek-chat' }), (error: unknown) =>
            error instanceof QodeAssistError && error.info.category === 'Validation' && error.message === expected);
        const { manifest } = await assemble(turn, { imagelessAgent: 'deepseek-chat', preview: true });
        assert.equal(manifest.refusal, expected);
    });
});
