import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandBuildRunner, NodeTerminal } from './node-process';
import { capHeadTail } from './output-cap';
import { parseBuildProblems } from '../context/build-problems';
import { createBuildTool, createTerminalTool, splitCommandLine } from './process-tools';
import { detectSandbox, sandboxLabel } from './sandbox';
import { ToolContext } from './tool';
import { WorkspaceFiles } from './workspace-files';

describe('process tools', () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-process-')));
    before(() => mkdirSync(join(root, 'sub')));
    after(() => rmSync(root, { recursive: true, force: true }));
    const context = (): ToolContext => ({ requestId: 'r', chatId: 'c', files: new WorkspaceFiles([root]) });
    const terminal = createTerminalTool({ terminal: new NodeTerminal(), allowed: ['node', 'pwd'], maxOutputChars: 200, timeoutMs: 5_000 });

    it('splits command lines with quotes and refuses shell syntax outside them', () => {
        assert.deepEqual(splitCommandLine('git commit -m "fix: a | b" \'x y\' ""'), ['git', 'commit', '-m', 'fix: a | b', 'x y', '']);
        for (const bad of ['ls; rm -rf /', 'cat a | grep b', 'echo $HOME', 'ls > out', 'echo `id`', 'ls *.ts', 'a && b', 'x\ny']) {
            assert.throws(() => splitCommandLine(bad), /outside quotes/, bad);
        }
        assert.throws(() => splitCommandLine('echo "open'), /unclosed quote/);
    });

    it('runs an allowed program in the workspace without a shell', async () => {
        const result = await terminal.run({ command: 'node -e "console.log(process.cwd(), 6 * 7)"', cwd: 'sub' }, context());
        assert.equal(result.content, `$ node -e "console.log(process.cwd(), 6 * 7)"\n[sandbox: ${sandboxLabel(await detectSandbox())}]\n${join(root, 'sub')} 42\n\n[exited with code 0]`);
        assert.equal(result.isError, false);
    });

    it('refuses programs off the list, paths to programs, and a cwd outside the workspace', async () => {
        await assert.rejects(terminal.run({ command: 'rm -rf sub' }, context()), /"rm" is not on the allowed list \(node, pwd\)/);
        await assert.rejects(terminal.run({ command: '/usr/bin/node -v' }, context()), /not on the allowed list/);
        await assert.rejects(terminal.run({ command: 'pwd', cwd: '../..' }, context()), /outside the workspace/);
    });

    it('reports a failing exit code, a timeout, and caps long output keeping head and tail', async () => {
        const failing = await terminal.run({ command: 'node -e "process.exit(3)"' }, context());
        assert.equal(failing.isError, true);
        assert.match(failing.content, /\[exited with code 3\]$/);
        const slow = await createTerminalTool({ terminal: new NodeTerminal(), allowed: ['node'], timeoutMs: 300 }).run({ command: 'node -e "setTimeout(() => {}, 10000)"' }, context());
        assert.match(slow.content, /\[timed out and was stopped\]$/);
        const loud = await terminal.run({ command: 'node -e "console.log(\'a\'.repeat(1000) + \'END\')"' }, context());
        assert.match(loud.content, /^\$ node .*\n\[sandbox: [^\n]+\]\naaaa[\s\S]*\[… \d+ characters omitted …\][\s\S]*aEND\n/);
        assert.deepEqual(capHeadTail('0123456789', 5), { text: '0\n[… 5 characters omitted …]\n6789', omitted: 5, omittedLines: 0 });
    });

    it('parses gcc, clang and tsc problems from build output', () => {
        const output = [
            'src/main.cpp:12:5: error: use of undeclared identifier \'foo\'',
            'src/util.h:3: warning: unused variable',
            'src/app.ts(7,14): error TS2322: Type \'string\' is not assignable to type \'number\'.',
            'make: *** [all] Error 1'
        ].join('\n');
        assert.deepEqual(parseBuildProblems(output), [
            { file: 'src/main.cpp', line: 12, column: 5, severity: 'error', message: 'use of undeclared identifier \'foo\'' },
            { file: 'src/util.h', line: 3, column: undefined, severity: 'warning', message: 'unused variable' },
            { file: 'src/app.ts', line: 7, column: 14, severity: 'error', message: 'Type \'string\' is not assignable to type \'number\'.' }
        ]);
    });

    it('build_project runs the configured build and lists the problems', async () => {
        const script = 'console.error("src/a.ts(1,2): error TS1005: \';\' expected."); process.exit(2)';
        const tool = createBuildTool(new CommandBuildRunner([process.execPath, '-e', script], root));
        const result = await tool.run({}, context());
        assert.equal(result.isError, true);
        assert.ok(result.content.startsWith(`The build failed (exit code 2).\n[sandbox: ${sandboxLabel(await detectSandbox())}]\n`));
        assert.match(result.content, /^The build failed \(exit code 2\)\.\n\[sandbox: [^\n]+\]\nProblems \(1 errors, 0 warnings\):\nsrc\/a.ts:1:2: error: ';' expected\.\nOutput:\nsrc\/a\.ts\(1,2\): error TS1005: ';' expected\.\n$/);
    });
});
