import * as assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Diagnostic } from '../ports/diagnostics';
import { createDiagnosticsTool } from './diagnostics-tool';
import { ToolContext } from './tool';
import { WorkspaceFiles } from './workspace-files';

describe('get_diagnostics', () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-diag-')));
    after(() => rmSync(root, { recursive: true, force: true }));
    const all: Diagnostic[] = [
        { path: join(root, 'src', 'b.ts'), line: 9, column: 1, severity: 'warning', message: 'unused import', source: 'eslint' },
        { path: join(root, 'src', 'a.ts'), line: 3, column: 7, severity: 'error', message: 'Cannot find name \'x\'.', source: 'ts' },
        { path: join(root, 'src', 'a.ts'), line: 1, column: 1, severity: 'hint', message: 'could be const' },
        { path: '/elsewhere/c.ts', line: 1, column: 1, severity: 'error', message: 'not ours' }
    ];
    const asked: Array<string | undefined> = [];
    const tool = createDiagnosticsTool({ get: async path => { asked.push(path); return path ? all.filter(d => d.path === path) : all; } });
    const context = { chatId: 'c', files: new WorkspaceFiles([root]) } as ToolContext;

    it('lists errors then warnings of the workspace, workspace-relative, leaving out other folders', async () => {
        assert.equal((await tool.run({}, context)).content,
            'src/a.ts:3:7: error: Cannot find name \'x\'. [ts]\nsrc/b.ts:9:1: warning: unused import [eslint]');
    });

    it('asks for one file by its absolute path and filters by severity', async () => {
        assert.equal((await tool.run({ path: 'src/a.ts', severity: 'all' }, context)).content,
            'src/a.ts:3:7: error: Cannot find name \'x\'. [ts]\nsrc/a.ts:1:1: hint: could be const');
        assert.equal(asked.at(-1), join(root, 'src', 'a.ts'));
        assert.equal((await tool.run({ path: 'src/b.ts', severity: 'error' }, context)).content, 'No errors reported for src/b.ts.');
        await assert.rejects(tool.run({ path: '../../etc/passwd' }, context), /outside the workspace/);
    });
});
