import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { EnvironmentSecretsStore, QodeAssistRuntime } from '@qodeassist/core';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatToolSettings } from '../common/chat-protocol';
import { ToolHostClient } from '../common/tool-host-protocol';
import { QodeAssistTheiaToolsServiceImpl } from './theia-tools-service-impl';
import { WorkspaceTrustRegistry } from './workspace-trust';

describe('QodeAssist tools for Theia AI (backend)', () => {
    let workspace: string;
    let service: QodeAssistTheiaToolsServiceImpl;
    const asked: string[] = [];
    const written: string[] = [];
    const host: ToolHostClient = {
        requestToolPermission: async (_id, request) => { asked.push(request.tool); return 'deny'; },
        getDiagnostics: async () => [],
        readOpenDocument: async () => undefined,
        writeDocument: async (path, content) => { written.push(path); writeFileSync(path, content); }
    };
    const settings: ChatToolSettings = {
        disabled: ['execute_terminal_command'], allowedCommands: [], commandTimeoutSeconds: 10, commandOutputLimit: 10_000, buildCommand: '', allowOutsideWorkspace: false, useGitignore: true
    };

    beforeEach(() => {
        workspace = mkdtempSync(join(tmpdir(), 'qodeassist-theia-tools-'));
        writeFileSync(join(workspace, 'notes.txt'), 'draft\n');
        const trust = new WorkspaceTrustRegistry();
        trust.setTrusted(workspace, true);
        service = new QodeAssistTheiaToolsServiceImpl(new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore({}) }), trust);
        service.setClient(host);
        asked.length = 0;
        written.length = 0;
    });
    afterEach(() => {
        service.dispose();
        rmSync(workspace, { recursive: true, force: true });
    });

    it('lists the enabled tools with their permission class and schema; a disabled one is left out', async () => {
        const tools = await service.tools(workspace, settings);
        const byName = new Map(tools.map(tool => [tool.name, tool]));
        assert.equal(byName.get('read_file')?.permission, 'read');
        assert.equal(byName.get('edit_file')?.permission, 'write');
        assert.ok(!byName.has('execute_terminal_command'), 'the user turned it off');
        assert.equal((byName.get('read_file')?.parameters as { type?: string }).type, 'object');
    });

    it('runs a read and a write without asking again (Theia confirmed the call), the write through the editor host', async () => {
        const read = await service.run(workspace, settings, { id: 'c1', name: 'read_file', arguments: '{"path":"notes.txt"}' });
        assert.equal(read.isError, false);
        assert.match(read.content, /draft/);
        const edit = await service.run(workspace, settings, { id: 'c2', name: 'edit_file', arguments: JSON.stringify({ path: 'notes.txt', old_text: 'draft', new_text: 'final' }) });
        assert.equal(edit.isError, false, edit.content);
        assert.deepEqual(asked, []);
        assert.deepEqual(written, [join(workspace, 'notes.txt')]);
        assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'final\n');
    });

    it('answers bad arguments, paths outside the workspace and turned-off tools with errors the model can act on', async () => {
        const cases: Array<[string, string, RegExp]> = [
            ['read_file', '{"path": ', /not valid JSON/],
            ['read_file', '["notes.txt"]', /must be a JSON object, not an array/],
            ['read_file', '{}', /Invalid arguments for read_file: path/],
            ['read_file', '{"path":"../../etc/passwd"}', /outside/i],
            ['execute_terminal_command', '{"command":"ls"}', /turned off by the user/]
        ];
        for (const [name, args, expected] of cases) {
            const result = await service.run(workspace, settings, { id: `c-${name}`, name, arguments: args });
            assert.equal(result.isError, true, `${name} ${args}`);
            assert.match(result.content, expected, `${name} ${args}: ${result.content}`);
        }
        assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'draft\n', 'nothing was changed');
    });

    it('in a workspace the user has not trusted, no tool that starts programs is offered or runs (git status would run its hooks)', async () => {
        const untrusted = new QodeAssistTheiaToolsServiceImpl(new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore({}) }), new WorkspaceTrustRegistry());
        untrusted.setClient(host);
        try {
            const enabled = { ...settings, disabled: [], buildCommand: 'make' };
            const names = (await untrusted.tools(workspace, enabled)).map(tool => tool.name);
            assert.ok(names.includes('read_file'));
            assert.ok(!names.includes('execute_terminal_command') && !names.includes('build_project'), names.join(', '));
            const result = await untrusted.run(workspace, enabled, { id: 'x', name: 'execute_terminal_command', arguments: '{"command":"ls"}' });
            assert.equal(result.isError, true);
            assert.match(result.content, /There is no tool named "execute_terminal_command"/);
        } finally {
            untrusted.dispose();
        }
    });
});
