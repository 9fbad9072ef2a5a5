import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ToolCall } from '../wire/assistant-turn';
import { FILE_TOOLS, hasRipgrep } from './file-tools';
import { ToolContributorRegistry, ToolKitExecutor } from './tool-executor';
import { WorkspaceFiles } from './workspace-files';

/** The JS walk and ripgrep read the same ignore files the same way: nested, negated, anchored, outside a git repository. */
describe('search_project gives the same answer with both engines', () => {
    let root: string;
    const tree: Record<string, string> = {
        '.gitignore': '*.log\nbuild/\n!keep.log\n',
        '.qodeassistignore': 'private/\n',
        'a.txt': 'needle',
        'app.log': 'needle',
        'keep.log': 'needle',
        'build/out.txt': 'needle',
        'src/.gitignore': 'gen/\n/local.txt\n!important.log\n',
        'src/main.txt': 'needle',
        'src/local.txt': 'needle',
        'src/lib/local.txt': 'needle',
        'src/gen/x.txt': 'needle',
        'src/important.log': 'needle',
        'src/deep/.gitignore': '*.txt\n!wanted.txt\n',
        'src/deep/wanted.txt': 'needle',
        'src/deep/unwanted.txt': 'needle',
        'private/p.txt': 'needle',
        'sub/.qodeassistignore': 'hidden.txt\n',
        'sub/hidden.txt': 'needle',
        'sub/shown.txt': 'needle',
        '.hidden/h.txt': 'needle',
        'node_modules/m.txt': 'needle',
        '.ignore': 'a.txt\n'
    };

    before(async () => {
        assert.equal(await hasRipgrep(), true, 'rg must be installed for this test');
        root = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-parity-')));
        for (const [path, content] of Object.entries(tree)) {
            mkdirSync(dirname(join(root, path)), { recursive: true });
            writeFileSync(join(root, path), `${content}\n`);
        }
        symlinkSync('a.txt', join(root, 'link.txt'));
        symlinkSync('src', join(root, 'linked-src'));
    });
    after(() => {
        delete process.env.QODEASSIST_SEARCH_ENGINE;
        rmSync(root, { recursive: true, force: true });
    });

    async function search(engine: 'js' | 'rg', useGitignore: boolean): Promise<string> {
        if (engine === 'js') {
            process.env.QODEASSIST_SEARCH_ENGINE = 'js';
        } else {
            delete process.env.QODEASSIST_SEARCH_ENGINE;
        }
        const registry = new ToolContributorRegistry();
        registry.register(() => FILE_TOOLS);
        const toolkit = new ToolKitExecutor(registry, 'parity', { files: new WorkspaceFiles([root], { useGitignore }), permissions: { ask: async () => 'deny' } });
        const result = await toolkit.execute({ callId: 'c', name: 'search_project', arguments: { query: 'needle', context_lines: 0 } } as ToolCall, { requestId: 'r' });
        return result.content;
    }

    it('with .gitignore on: nested files, negations and anchors as git reads them; links not followed', async () => {
        const expected = ['.hidden/h.txt', 'a.txt', 'keep.log', 'src/deep/wanted.txt', 'src/important.log', 'src/lib/local.txt', 'src/main.txt', 'sub/shown.txt']
            .map(path => `${path}:1: needle`).join('\n');
        assert.equal(await search('js', true), expected);
        assert.equal(await search('rg', true), expected);
    });

    it('with .gitignore off: only .qodeassistignore, at every level', async () => {
        const js = await search('js', false);
        assert.equal(await search('rg', false), js);
        assert.deepEqual(js.split('\n').map(line => line.split(':')[0]), [
            '.hidden/h.txt', 'a.txt', 'app.log', 'build/out.txt', 'keep.log', 'src/deep/unwanted.txt', 'src/deep/wanted.txt', 'src/gen/x.txt',
            'src/important.log', 'src/lib/local.txt', 'src/local.txt', 'src/main.txt', 'sub/shown.txt'
        ]);
    });

    it('list_project_files lists the files the search reads', async () => {
        const registry = new ToolContributorRegistry();
        registry.register(() => FILE_TOOLS);
        const toolkit = new ToolKitExecutor(registry, 'parity', { files: new WorkspaceFiles([root], { useGitignore: true }), permissions: { ask: async () => 'deny' } });
        const listed = (await toolkit.execute({ callId: 'c', name: 'list_project_files', arguments: {} } as ToolCall, { requestId: 'r' })).content.split('\n');
        const searched = (await search('js', true)).split('\n').map(line => line.split(':')[0]);
        assert.deepEqual(listed.filter(path => !/(^|\/)\.(gitignore|qodeassistignore|ignore)$/.test(path)), searched);
    });
});
