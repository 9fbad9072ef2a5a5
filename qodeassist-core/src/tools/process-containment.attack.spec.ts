import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { CancelledError } from '../wire/error-info';
import { FILE_TOOLS } from './file-tools';
import { CommandBuildRunner, NodeTerminal } from './node-process';
import { createBuildTool, createTerminalTool } from './process-tools';
import { ToolContext } from './tool';
import { WorkspaceFiles } from './workspace-files';
import { processAlive } from '../config/process-alive';

/**
 * What a hostile repository or a leaky environment could do through the processes the tools
 * start, and proof that it did not happen: no key in the child's environment, no marker from
 * a planted binary, no process left running after a timeout or cancel.
 */
describe('process containment (attacks)', () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-containment-')));
    const workspace = join(base, 'workspace');
    const outsideBin = join(base, 'outside-bin');
    const marker = join(base, 'planted-binary-ran');
    const originalEnv = { ...process.env };
    const started: number[] = [];
    const searchTool = FILE_TOOLS.find(tool => tool.name === 'search_project')!;
    // These children write outside the workspace and report host pids: they pin the containment that holds without a sandbox; sandbox.attack.spec.ts attacks the bubblewrap path.
    const unsandboxed = { sandbox: { mode: 'off' } } as const;

    const script = (path: string, text: string) => { writeFileSync(path, text); chmodSync(path, 0o755); };
    const context = (signal?: AbortSignal): ToolContext => ({ requestId: 'r', chatId: 'c', files: new WorkspaceFiles([workspace]), signal });
    const isGone = (pid: number) => !processAlive(pid);
    /** A killed orphan lingers as a zombie until init reaps it (about a second here): wait for that before judging. */
    const goneSoon = async (pid: number) => {
        for (let i = 0; i < 100 && !isGone(pid); i++) {
            await new Promise(done => setTimeout(done, 50));
        }
        return isGone(pid);
    };
    const waitForFile = async (path: string) => {
        for (let i = 0; i < 250 && !existsSync(path); i++) {
            await new Promise(done => setTimeout(done, 20));
        }
        return Number(readFileSync(path, 'utf8'));
    };

    before(() => {
        mkdirSync(join(workspace, 'bin'), { recursive: true });
        mkdirSync(outsideBin);
        writeFileSync(join(workspace, 'notes.txt'), 'needle in the workspace\n');
        // The planted binaries a repository could bring: each leaves a marker if it ever runs.
        for (const name of ['git', 'node', 'rg']) {
            script(join(workspace, name), `#!/bin/sh\necho planted > "${marker}"\n`);
            script(join(workspace, 'bin', name), `#!/bin/sh\necho planted > "${marker}"\n`);
        }
        writeFileSync(join(workspace, 'dump-env.js'), 'require("fs").writeFileSync(process.argv[2], JSON.stringify(process.env));\n');
        // Starts a grandchild that inherits stdout/stderr and sleeps 30 s; the parent waits too, or exits at once.
        writeFileSync(join(workspace, 'holder.js'), [
            'const child = require("child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "inherit" });',
            'require("fs").writeFileSync(process.argv[3], String(child.pid));',
            'console.log("grandchild started");',
            'if (process.argv[2] === "parent-exits") { process.exit(0); } else { setTimeout(() => {}, 30000); }'
        ].join('\n'));
    });
    afterEach(() => {
        for (const key of Object.keys(process.env)) {
            if (!(key in originalEnv)) {
                delete process.env[key];
            }
        }
        Object.assign(process.env, originalEnv);
        rmSync(marker, { force: true });
        for (const pid of started.splice(0)) {
            try {
                process.kill(pid, 'SIGKILL');
            } catch {
                // Already gone, as it should be.
            }
        }
    });
    after(() => rmSync(base, { recursive: true, force: true }));

    describe('no key reaches a child process', () => {
        const known = 'correct horse battery staple from the secrets store';
        const leaks: [string, Record<string, string>][] = [
            ['OPENAI_API_KEY', { OPENAI_API_KEY: 'openai-value-leak-0001' }],
            ['ANTHROPIC_API_KEY', { ANTHROPIC_API_KEY: 'anthropic-value-leak-0002' }],
            ['the MCP server token', { QODEASSIST_MCP_TOKEN: 'mcp-token-value-leak-0003' }],
            ['a key-shaped value in an allowed variable', { TERM: 'sk-ant-api03-shapedvalueleak0004' }],
            ['a proxy URL with a password', { HTTPS_PROXY: 'http://ada:proxy-password-leak-0005@proxy.local:3128' }]
        ];
        const starters: [string, (dump: string) => Promise<unknown>, boolean][] = [
            ['execute_terminal_command', dump => createTerminalTool({ terminal: new NodeTerminal({ secrets: () => [known], ...unsandboxed }), allowed: ['node'] })
                .run({ command: `node dump-env.js ${dump}` }, context()), true],
            ['build_project', dump => createBuildTool(new CommandBuildRunner(['node', 'dump-env.js', dump], workspace, new NodeTerminal({ secrets: () => [known], ...unsandboxed })))
                .run({}, context()), true],
            // A stand-in rg outside the workspace records what ripgrep would see.
            ['search_project (rg)', async dump => {
                script(join(outsideBin, 'rg'), `#!/bin/sh\nif [ "$1" = "--version" ]; then echo ripgrep; exit 0; fi\nenv > "${dump}"\nexit 1\n`);
                process.env.PATH = `${outsideBin}${delimiter}${originalEnv.PATH}`;
                return searchTool.run({ query: 'needle' }, context());
            }, false]
        ];
        for (const [starter, run, knowsSecrets] of starters) {
            const cases = knowsSecrets ? [...leaks, ['a known secret value in LANG', { LANG: known }] as [string, Record<string, string>]] : leaks;
            for (const [what, variables] of cases) {
                it(`${starter}: the child never sees ${what}`, async () => {
                    Object.assign(process.env, variables);
                    const dump = join(base, `env-${Math.random().toString(36).slice(2)}.txt`);
                    await run(dump);
                    const seen = readFileSync(dump, 'utf8');
                    assert.ok(seen.includes(originalEnv.PATH!.split(delimiter)[0]), 'the child did run and record its environment');
                    for (const value of Object.values(variables)) {
                        assert.equal(seen.includes(value), false, `${value} leaked into the child's environment`);
                    }
                });
            }
        }
    });

    describe('a binary planted in the workspace never runs', () => {
        const hostilePath = () => [workspace, join(workspace, 'bin'), '.', '', originalEnv.PATH].join(delimiter);
        const cases: [string, () => Promise<string>][] = [
            ['git --version through execute_terminal_command', async () =>
                (await createTerminalTool({ terminal: new NodeTerminal({ env: { ...process.env, PATH: hostilePath() } }), allowed: ['git'] })
                    .run({ command: 'git --version' }, context())).content],
            ['node through build_project', async () =>
                (await createBuildTool(new CommandBuildRunner(['node', '-e', 'console.log("real node")'], workspace, new NodeTerminal({ env: { ...process.env, PATH: hostilePath() } })))
                    .run({}, context())).content],
            ['rg through search_project', async () => {
                process.env.PATH = hostilePath();
                return (await searchTool.run({ query: 'needle' }, context())).content;
            }]
        ];
        for (const [what, run] of cases) {
            it(`${what} starts the program outside the workspace, not the planted one`, async () => {
                const output = await run();
                assert.equal(existsSync(marker), false, 'the planted binary ran');
                assert.match(output, /git version|real node|notes\.txt:1: needle in the workspace/);
            });
        }

        it('answers that the program was not found when only the workspace has it', async () => {
            const terminal = new NodeTerminal({ env: { PATH: [workspace, join(workspace, 'bin'), '.', ''].join(delimiter) } });
            const result = await createTerminalTool({ terminal, allowed: ['git'] }).run({ command: 'git --version' }, context());
            assert.equal(existsSync(marker), false, 'the planted binary ran');
            assert.match(result.content, /git was not found outside the workspace on PATH/);
            assert.match(result.content, /\[could not start\]$/);
        });
    });

    describe('a timeout or cancel ends the whole process tree', () => {
        const terminal = createTerminalTool({ terminal: new NodeTerminal(unsandboxed), allowed: ['node'] });
        for (const variant of ['parent-waits', 'parent-exits']) {
            it(`answers within its timeout + 1 s and kills a grandchild holding the output pipe (${variant})`, async () => {
                const pidFile = join(base, `grandchild-${variant}.pid`);
                const begin = Date.now();
                const result = await terminal.run({ command: `node holder.js ${variant} ${pidFile}`, timeout_seconds: 1 }, context());
                const elapsed = Date.now() - begin;
                const grandchild = await waitForFile(pidFile);
                started.push(grandchild);
                assert.ok(elapsed < 2_000, `answered after ${elapsed} ms`);
                assert.match(result.content, /grandchild started\n[\s\S]*\[timed out and was stopped\]$/);
                assert.equal(await goneSoon(grandchild), true, 'the grandchild is still running');
            });
        }

        const cancellable: [string, (signal: AbortSignal, pidFile: string) => Promise<unknown>][] = [
            ['execute_terminal_command', (signal, pidFile) => terminal.run({ command: `node holder.js parent-waits ${pidFile}` }, context(signal))],
            ['build_project', (signal, pidFile) => createBuildTool(new CommandBuildRunner(['node', 'holder.js', 'parent-waits', pidFile], workspace, new NodeTerminal(unsandboxed))).run({}, context(signal))],
            ['search_project (rg)', (signal, pidFile) => {
                script(join(outsideBin, 'rg'), `#!/bin/sh\nif [ "$1" = "--version" ]; then echo ripgrep; exit 0; fi\nsleep 30 &\necho $! > "${pidFile}"\nwait\n`);
                process.env.PATH = `${outsideBin}${delimiter}${originalEnv.PATH}`;
                return searchTool.run({ query: 'needle' }, context(signal));
            }]
        ];
        for (const [starter, run] of cancellable) {
            it(`${starter}: cancelling ends in CancelledError and kills the grandchild`, async () => {
                const pidFile = join(base, `cancel-${starter.replace(/\W+/g, '-')}.pid`);
                const controller = new AbortController();
                const running = run(controller.signal, pidFile);
                const grandchild = await waitForFile(pidFile);
                started.push(grandchild);
                const abortedAt = Date.now();
                controller.abort();
                await assert.rejects(running, CancelledError);
                assert.ok(Date.now() - abortedAt < 1_000, 'answered within a second of the cancel');
                assert.equal(await goneSoon(grandchild), true, 'the grandchild is still running');
            });
        }
    });
});
