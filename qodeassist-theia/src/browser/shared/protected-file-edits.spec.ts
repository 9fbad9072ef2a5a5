import * as assert from 'node:assert/strict';
import type { FileEditRecord } from '@qodeassist/core';
import { askingOnProtected, FileEditPort } from './protected-file-edits';

describe('Undo and Apply from the chat on protected places', () => {
    const record = (absolutePath: string): FileEditRecord => ({ path: absolutePath.slice(4), absolutePath, created: false, diff: '' });
    const recording = () => {
        const writes: string[] = [];
        const port: FileEditPort = {
            undo: async edit => { writes.push(`undo ${edit.absolutePath}`); },
            reapply: async edit => { writes.push(`reapply ${edit.absolutePath}`); }
        };
        return { writes, port };
    };
    const locate = async (path: string) => path.includes('/.vscode/') ? '.vscode/settings.json' : undefined;

    it('asks before writing a protected place and writes nothing when the user says no', async () => {
        const { writes, port } = recording();
        const asked: Array<[string, string]> = [];
        const edits = askingOnProtected(port, { protectedLocation: locate, confirm: async (path, action) => { asked.push([path, action]); return false; } });
        await assert.rejects(edits.undo(record('/ws/.vscode/settings.json')), /\.vscode\/settings\.json .*was not allowed; nothing was changed/);
        await assert.rejects(edits.reapply(record('/ws/.vscode/settings.json')), /not allowed/);
        assert.deepEqual(asked, [['.vscode/settings.json', 'undo'], ['.vscode/settings.json', 'reapply']]);
        assert.deepEqual(writes, []);
    });

    it('writes a protected place once the user allows it, and ordinary files without asking', async () => {
        const { writes, port } = recording();
        let questions = 0;
        const edits = askingOnProtected(port, { protectedLocation: locate, confirm: async () => { questions++; return true; } });
        await edits.undo(record('/ws/.vscode/settings.json'));
        await edits.reapply(record('/ws/src/main.ts'));
        assert.equal(questions, 1);
        assert.deepEqual(writes, ['undo /ws/.vscode/settings.json', 'reapply /ws/src/main.ts']);
    });
});
