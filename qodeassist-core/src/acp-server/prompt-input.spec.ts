import * as assert from 'node:assert/strict';
import { QodeAssistError } from '../wire/error-info';
import { LinkedFileReader, promptParts } from './prompt-input';

const reader = (files: Record<string, string>): LinkedFileReader & { asked: string[] } => {
    const asked: string[] = [];
    return {
        asked,
        readText: async path => {
            asked.push(path);
            if (!(path in files)) {
                throw new Error('ENOENT: no such file');
            }
            return files[path];
        },
        readBytes: async path => Buffer.from(files[path] ?? '')
    };
};

const validation = (pattern: RegExp) => (error: unknown) => error instanceof QodeAssistError && error.info.category === 'Validation' && pattern.test(error.message);

describe('promptParts', () => {
    it('text is the message; an embedded file, an image and a linked file are attached, named relative to the session folder', async () => {
        const files = reader({ '/w/src/a.ts': 'export const a = 1;\n' });
        const parts = await promptParts([
            { type: 'text', text: 'Explain' },
            { type: 'resource', resource: { uri: 'file:///w/notes.md', text: 'frozen', mimeType: 'text/markdown' } },
            { type: 'image', data: Buffer.from('png').toString('base64'), mimeType: 'image/png' },
            { type: 'resource_link', uri: 'file:///w/src/a.ts', name: 'a.ts' }
        ], '/w', files);
        assert.equal(parts.text, 'Explain');
        assert.deepEqual(parts.files.map(file => [file.name, file.mediaType, file.bytes.toString()]), [
            ['notes.md', 'text/markdown', 'frozen'], ['image-2.png', 'image/png', 'png'], ['src/a.ts', 'text/plain', 'export const a = 1;\n']
        ]);
        assert.deepEqual(files.asked, ['/w/src/a.ts']);
    });

    it('a link that is not a file stays in the text as a link', async () => {
        const parts = await promptParts([{ type: 'text', text: 'See' }, { type: 'resource_link', uri: 'https://example.org/spec', name: 'spec', title: 'The spec' }], '/w', reader({}));
        assert.equal(parts.text, 'See\n\n[The spec](https://example.org/spec)');
        assert.deepEqual(parts.files, []);
    });

    it('refuses audio, an empty prompt and a linked file that cannot be read, saying what to do', async () => {
        await assert.rejects(promptParts([{ type: 'audio', data: 'AA==', mimeType: 'audio/wav' }], '/w', reader({})), validation(/not audio; describe the recording/));
        await assert.rejects(promptParts([{ type: 'text', text: '  ' }], '/w', reader({})), validation(/prompt is empty/));
        await assert.rejects(promptParts([{ type: 'resource_link', uri: 'file:///w/gone.ts', name: 'gone.ts' }], '/w', reader({})),
            validation(/linked file gone.ts could not be read \(ENOENT: no such file\)/));
    });
});
