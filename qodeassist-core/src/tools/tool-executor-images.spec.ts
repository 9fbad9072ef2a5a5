import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { PROCESS_SECRETS } from '../wire/redaction';
import { PNG_1X1 } from '../wire/tool-result-images.spec-support';
import { defineTool, ToolOutcome } from './tool';
import { ToolContributorRegistry, ToolKitExecutor } from './tool-executor';
import { WorkspaceFiles } from './workspace-files';

describe('ToolKit: the images a tool returns', () => {
    const root = mkdtempSync(join(tmpdir(), 'qodeassist-toolkit-images-'));
    after(() => rmSync(root, { recursive: true, force: true }));
    const run = async (outcome: ToolOutcome) => {
        const registry = new ToolContributorRegistry();
        registry.register(() => [defineTool({ name: 'shot', description: 'Takes a screenshot.', permission: 'read', parameters: z.object({}), run: async () => outcome })]);
        const toolkit = new ToolKitExecutor(registry, 'chat-1', { files: new WorkspaceFiles([root]), permissions: { ask: async () => 'deny' } });
        return toolkit.execute({ callId: 'c1', name: 'shot', arguments: {} }, { requestId: 'r1' });
    };

    it('pass on beside the text, which alone is redacted: image bytes are held to the allowlist and limits instead', async () => {
        const secret = 'sk-tool-images-0123456789abcdef';
        PROCESS_SECRETS.add(secret);
        const executed = await run({ content: `captured with ${secret}`, images: [{ mediaType: 'image/png', data: PNG_1X1 }] });
        assert.ok(!executed.content.includes(secret));
        assert.deepEqual(executed.images, [{ mediaType: 'image/png', data: PNG_1X1 }]);
    });

    it('attack: a tool of any origin cannot slip past the rules — an SVG or bytes not of their claimed type are left out', async () => {
        const svg = Buffer.from('<svg onload="alert(1)"/>').toString('base64');
        const executed = await run({ content: 'two images', images: [{ mediaType: 'image/svg+xml' as never, data: svg }, { mediaType: 'image/jpeg', data: PNG_1X1 }] });
        assert.equal(executed.images, undefined);
        assert.equal(executed.content, 'two images');
    });
});
