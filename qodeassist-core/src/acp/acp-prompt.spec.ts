import * as assert from 'node:assert/strict';
import { buildPrompt } from './acp-prompt';

describe('buildPrompt', () => {
    const reads: string[] = [];
    const read = async (path: string) => {
        reads.push(path);
        if (path.endsWith('secret.txt')) {
            throw new Error('"secret.txt" is excluded by the workspace\'s ignore rules');
        }
        return `text of ${path}`;
    };
    const input = { text: 'Explain', files: [{ path: 'src/a.ts' }, { path: '/ws/secret.txt' }, { path: 'pasted.md', text: 'pasted' }], images: [{ data: 'AA==', mimeType: 'image/png' }] };

    beforeEach(() => { reads.length = 0; });

    it('embeds files (read through the confined reader) and images for an agent that takes both, the user\'s text last', async () => {
        const built = await buildPrompt(input, { embeddedContext: true, image: true }, ['/ws'], read);
        assert.deepEqual(built.blocks, [
            { type: 'resource', resource: { uri: 'file:///ws/src/a.ts', text: 'text of /ws/src/a.ts' } },
            { type: 'resource', resource: { uri: 'file:///ws/pasted.md', text: 'pasted' } },
            { type: 'image', data: 'AA==', mimeType: 'image/png' },
            { type: 'text', text: 'Explain' }
        ]);
        assert.deepEqual(reads, ['/ws/src/a.ts', '/ws/secret.txt']);
        assert.deepEqual(built.notes, ['/ws/secret.txt was left out: "secret.txt" is excluded by the workspace\'s ignore rules']);
    });

    it('links files, inlines attachments as text and leaves images out (with a note) for an agent with the baseline only', async () => {
        const built = await buildPrompt(input, {}, ['/ws'], read);
        assert.deepEqual(built.blocks, [
            { type: 'resource_link', uri: 'file:///ws/src/a.ts', name: 'a.ts' },
            { type: 'resource_link', uri: 'file:///ws/secret.txt', name: 'secret.txt' },
            { type: 'text', text: 'Attached file pasted.md:\n```\npasted\n```' },
            { type: 'text', text: 'Explain' }
        ]);
        assert.deepEqual(reads, [], 'a linked file is read by the agent itself, through fs/read_text_file');
        assert.deepEqual(built.notes, ['An image (image/png) was left out: this agent does not accept images.']);
    });
});
