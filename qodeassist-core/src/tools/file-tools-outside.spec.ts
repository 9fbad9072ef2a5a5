import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolCall } from '../wire/assistant-turn';
import { FILE_TOOLS } from './file-tools';
import { ToolContributorRegistry, ToolKitExecutor } from './tool-executor';
import { WorkspaceFiles } from './workspace-files';

/** qodeassist.tools.allowOutsideWorkspace: every file tool works outside the roots; the workspace's own ignored files stay hidden. */
describe('file tools with outside access allowed', () => {
    let base: string;
    let root: string;
    let outside: string;

    beforeEach(() => {
        base = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-outside-')));
        root = join(base, 'ws');
        outside = join(base, 'elsewhere');
        mkdirSync(join(root, 'src'), { recursive: true });
        mkdirSync(join(outside, 'notes'), { recursive: true });
        writeFileSync(join(root, '.qodeassistignore'), '.env\n');
        writeFileSync(join(root, '.env'), 'KEY=hidden-value\n');
        writeFileSync(join(root, 'src', 'main.ts'), 'export const needle = 1;\n');
        writeFileSync(join(outside, 'notes', 'todo.txt'), 'outside needle\n');
        symlinkSync(join(outside, 'notes'), join(root, 'notes-link'));
        symlinkSync('.env', join(root, 'alias.txt'));
        symlinkSync(join(root, '.env'), join(outside, 'back.txt'));
    });
    afterEach(() => {
        delete process.env.QODEASSIST_SEARCH_ENGINE;
        rmSync(base, { recursive: true, force: true });
    });

    const toolkit = (allowOutside: boolean) => {
        const registry = new ToolContributorRegistry();
        registry.register(() => FILE_TOOLS);
        const kit = new ToolKitExecutor(registry, 'chat-outside', {
            files: new WorkspaceFiles([root], { allowOutside, useGitignore: true }), permissions: { ask: async () => 'allow-once' }
        });
        return (name: string, args: Record<string, unknown>) => kit.execute({ callId: 'c', name, arguments: args } as ToolCall, { requestId: 'r' });
    };

    it('read_file reads an outside file by absolute path and through a link', async () => {
        const run = toolkit(true);
        assert.deepEqual(await run('read_file', { path: join(outside, 'notes', 'todo.txt') }), { content: 'outside needle\n', isError: undefined });
        assert.equal((await run('read_file', { path: 'notes-link/todo.txt' })).content, 'outside needle\n');
    });

    it('list_project_files lists an outside folder, by absolute path and through a link', async () => {
        const run = toolkit(true);
        assert.equal((await run('list_project_files', { path: join(outside, 'notes') })).content, join(outside, 'notes', 'todo.txt'));
        assert.equal((await run('list_project_files', { path: 'notes-link' })).content, join(outside, 'notes', 'todo.txt'));
    });

    it('find_file and search_project (both engines) still search the workspace', async () => {
        const run = toolkit(true);
        assert.equal((await run('find_file', { query: 'main.ts' })).content, 'src/main.ts');
        for (const engine of ['js', 'rg']) {
            if (engine === 'js') {
                process.env.QODEASSIST_SEARCH_ENGINE = 'js';
            } else {
                delete process.env.QODEASSIST_SEARCH_ENGINE;
            }
            assert.equal((await run('search_project', { query: 'needle', context_lines: 0 })).content, 'src/main.ts:1: export const needle = 1;', engine);
        }
    });

    it('create_file and edit_file write outside', async () => {
        const run = toolkit(true);
        const created = await run('create_file', { path: join(outside, 'new.txt'), content: 'made\n' });
        assert.equal(created.isError, undefined, created.content);
        assert.equal(readFileSync(join(outside, 'new.txt'), 'utf8'), 'made\n');
        const edited = await run('edit_file', { path: 'notes-link/todo.txt', old_text: 'needle', new_text: 'pin' });
        assert.equal(edited.isError, undefined, edited.content);
        assert.equal(readFileSync(join(outside, 'notes', 'todo.txt'), 'utf8'), 'outside pin\n');
    });

    it('a link to an ignored file of the workspace stays refused, from inside or from outside', async () => {
        const run = toolkit(true);
        for (const path of ['alias.txt', join(outside, 'back.txt')]) {
            const result = await run('read_file', { path });
            assert.equal(result.isError, true, path);
            assert.ok(!result.content.includes('hidden-value'), path);
        }
        assert.equal((await run('edit_file', { path: join(outside, 'back.txt'), old_text: 'KEY', new_text: 'X' })).isError, true);
        assert.equal(readFileSync(join(root, '.env'), 'utf8'), 'KEY=hidden-value\n');
    });

    it('without outside access every file tool refuses the same outside paths and writes nothing', async () => {
        const run = toolkit(false);
        const calls: Array<[string, Record<string, unknown>]> = [
            ['read_file', { path: join(outside, 'notes', 'todo.txt') }], ['read_file', { path: 'notes-link/todo.txt' }],
            ['list_project_files', { path: join(outside, 'notes') }], ['list_project_files', { path: 'notes-link' }],
            ['create_file', { path: join(outside, 'new.txt'), content: 'x' }], ['edit_file', { path: 'notes-link/todo.txt', old_text: 'needle', new_text: 'pin' }]
        ];
        for (const [tool, args] of calls) {
            const result = await run(tool, args);
            assert.equal(result.isError, true, `${tool} ${JSON.stringify(args)}`);
            assert.match(result.content, /outside the workspace/);
        }
        assert.ok(!existsSync(join(outside, 'new.txt')));
        assert.equal(readFileSync(join(outside, 'notes', 'todo.txt'), 'utf8'), 'outside needle\n');
    });
});
