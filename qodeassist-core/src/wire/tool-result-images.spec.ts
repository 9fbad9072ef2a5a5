import * as assert from 'node:assert/strict';
import { ATTACHMENT_LIMITS } from '../protocol';
import { keptToolImages, MAX_TOOL_RESULT_IMAGES, toolResultImage } from './tool-result-images';
import { PNG_1X1 } from './tool-result-images.spec-support';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 0xff, 0xd9]).toString('base64');
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1').toString('base64');
/** A 1×1 lossless WebP: the RIFF size is the file's. */
const WEBP = 'UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==';

describe('tool result images: which go to the model, and the words for those that do not', () => {
    const cases: Array<[string, string, string]> = [['image/png', PNG_1X1, 'png'], ['image/jpeg', JPEG, 'jpeg'], ['image/gif', GIF, 'gif'], ['image/webp', WEBP, 'webp']];
    for (const [mediaType, data, name] of cases) {
        it(`a ${name} whose bytes are a ${name} goes, and its line still describes it`, () => {
            const bytes = Buffer.from(data, 'base64').length;
            assert.deepEqual(toolResultImage(`image ${mediaType}`, mediaType, data, 0), { text: `[image ${mediaType}, ${bytes} bytes]`, image: { mediaType, data } });
        });
    }

    it('a file that only starts like its type is refused: a signature followed by a page, bytes after the end, a cut file', () => {
        const png = Buffer.from(PNG_1X1, 'base64');
        const polyglots: Array<[string, Buffer]> = [
            ['image/png', Buffer.concat([png.subarray(0, 8), Buffer.from('<html><script>alert(1)</script></html>')])],
            ['image/png', Buffer.concat([png, Buffer.from('<html></html>')])],
            ['image/png', png.subarray(0, png.length - 12)],
            ['image/jpeg', Buffer.concat([Buffer.from(JPEG, 'base64').subarray(0, 12), Buffer.from('<html></html>')])],
            ['image/gif', Buffer.from('GIF89a<html><script></script></html>', 'latin1')],
            ['image/webp', Buffer.concat([Buffer.from(WEBP, 'base64'), Buffer.from('<html></html>')])]
        ];
        for (const [mediaType, bytes] of polyglots) {
            const kept = toolResultImage(`image ${mediaType}`, mediaType, bytes.toString('base64'), 0);
            assert.equal(kept.image, undefined, `${mediaType} ${bytes.toString('latin1')}`);
            assert.match(kept.text, new RegExp(`not sent to the model, its bytes are not a ${mediaType.replace('/', '\\/')} image\\]$`));
        }
    });

    it('a type outside the allowlist (SVG, octet-stream, a made-up type) is described as before and never sent', () => {
        const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64');
        for (const mediaType of ['image/svg+xml', 'application/octet-stream', 'image/x-icon', 'IMAGE/PNG']) {
            const kept = toolResultImage(`image ${mediaType}`, mediaType, mediaType === 'IMAGE/PNG' ? PNG_1X1 : svg, 0);
            assert.equal(kept.image, undefined, mediaType);
            assert.match(kept.text, new RegExp(`^\\[image ${mediaType.replace(/[+/]/g, '\\$&')}, \\d+ bytes\\]$`));
        }
    });

    it('an image over the chat\'s image limit is described with its size and the limit, and not sent', () => {
        const big = PNG_1X1.slice(0, 12) + 'A'.repeat(Math.ceil((ATTACHMENT_LIMITS.imageBytes + 3) / 3) * 4);
        const kept = toolResultImage('image image/png', 'image/png', big, 0);
        assert.equal(kept.image, undefined);
        assert.match(kept.text, /^\[image image\/png, \d+ bytes: not sent to the model, larger than the 5 MB the chat takes for an image\]$/);
        assert.ok(Number(/, (\d+) bytes/.exec(kept.text)![1]) > ATTACHMENT_LIMITS.imageBytes);
    });

    it('bytes that are not of the type they claim, or no base64 at all, are described and not sent', () => {
        const gif = toolResultImage('image image/png', 'image/png', GIF, 0);
        assert.deepEqual(gif, { text: `[image image/png, ${Buffer.from(GIF, 'base64').length} bytes: not sent to the model, its bytes are not a image/png image]` });
        const text = toolResultImage('image image/png', 'image/png', 'not base64!', 0);
        assert.equal(text.image, undefined);
        assert.match(text.text, /its data is not base64\]$/);
    });

    it(`a result hands over at most ${MAX_TOOL_RESULT_IMAGES} images; the next is described saying so`, () => {
        const over = toolResultImage('image image/png', 'image/png', PNG_1X1, MAX_TOOL_RESULT_IMAGES);
        assert.equal(over.image, undefined);
        assert.match(over.text, new RegExp(`a tool result hands over at most ${MAX_TOOL_RESULT_IMAGES} images\\]$`));
        const many = Array.from({ length: MAX_TOOL_RESULT_IMAGES + 2 }, () => ({ mediaType: 'image/png' as const, data: PNG_1X1 }));
        assert.equal(keptToolImages(many).length, MAX_TOOL_RESULT_IMAGES);
    });

    it('keptToolImages leaves out what a tool of any origin put there against the rules', () => {
        const images = [{ mediaType: 'image/png' as const, data: PNG_1X1 }, { mediaType: 'image/png' as const, data: GIF }, { mediaType: 'image/svg+xml' as never, data: PNG_1X1 }];
        assert.deepEqual(keptToolImages(images), [images[0]]);
        assert.deepEqual(keptToolImages(undefined), []);
    });
});
