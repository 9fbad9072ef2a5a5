import * as assert from 'node:assert/strict';
import { PNG_1X1 } from '../wire/tool-result-images.spec-support';
import { toolResultParts, toolResultText } from './mcp-tool-result';

describe('MCP tool results: images go beside the text, everything else stays text', () => {
    const pngBytes = Buffer.from(PNG_1X1, 'base64').length;

    it('an image part of an allowed type goes as an image, and the text still describes it in its place', () => {
        const parts = toolResultParts({ content: [{ type: 'text', text: 'Here it is:' }, { type: 'image', mimeType: 'image/png', data: PNG_1X1 }, { type: 'text', text: 'done' }] });
        assert.deepEqual(parts, { text: `Here it is:\n[image image/png, ${pngBytes} bytes]\ndone`, images: [{ mediaType: 'image/png', data: PNG_1X1 }] });
    });

    it('an embedded resource whose blob is an image goes as an image; a non-image blob and audio are described only', () => {
        const audio = Buffer.from('RIFF....WAVE').toString('base64');
        const parts = toolResultParts({
            content: [
                { type: 'resource', resource: { uri: 'file:///shot.png', mimeType: 'image/png', blob: PNG_1X1 } },
                { type: 'resource', resource: { uri: 'file:///data.bin', mimeType: 'application/octet-stream', blob: audio } },
                { type: 'audio', mimeType: 'audio/wav', data: audio }
            ]
        });
        assert.deepEqual(parts.images, [{ mediaType: 'image/png', data: PNG_1X1 }]);
        assert.equal(parts.text, [
            `[resource file:///shot.png (image/png), ${pngBytes} bytes]`,
            '[resource file:///data.bin (application/octet-stream), 12 bytes]',
            '[audio audio/wav, 12 bytes]'
        ].join('\n'));
    });

    it('an SVG or an octet-stream image part is described as before and not passed on', () => {
        const svg = Buffer.from('<svg/>').toString('base64');
        const parts = toolResultParts({ content: [{ type: 'image', mimeType: 'image/svg+xml', data: svg }, { type: 'image', mimeType: 'application/octet-stream', data: PNG_1X1 }] });
        assert.deepEqual(parts, { text: `[image image/svg+xml, 6 bytes]\n[image application/octet-stream, ${pngBytes} bytes]`, images: [] });
        assert.equal(toolResultText({ content: [{ type: 'image', mimeType: 'image/svg+xml', data: svg }] }), '[image image/svg+xml, 6 bytes]');
    });
});
