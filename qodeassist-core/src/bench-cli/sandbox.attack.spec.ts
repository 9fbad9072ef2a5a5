import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCaseTests } from './fim-eval-tests';
import { keyForms, pidsWith, until } from '../tools/process-attack.spec-support';
import { CancelledError } from '../wire/error-info';
import { NodeTerminal } from '../tools/node-process';
import { createTerminalTool } from '../tools/process-tools';
import { detectSandbox, SandboxSettings } from '../tools/sandbox';
import { ToolContext } from '../tools/tool';
import { WorkspaceFiles } from '../tools/workspace-files';

/**
 * What a command the model (or a repository's test) runs could do to the machine, and proof it did
 * not happen: the backend's key read through /proc, the user's key files read, a file written
 * outside the workspace, a grandchild that left the process group still running, a repository's
 * git configuration run. The backend here is a real second process whose environment holds the
 * key from its start, as the IDE's backend does (a key set in process.env never reaches /proc).
 */
const KEY = 'sk-ant-MARKER-5f1c0b7e9a2d4c6e8b3a1f0d9c7e5b2a';
const FILE_MARKER = 'FILE-MARKER-8d2e6a4c1b9f';
const SANDBOXED: SandboxSettings = { mode: 'auto' };
const UNSANDBOXED: SandboxSettings = { mode: 'off' };

function assertNoKey(output: string, what: string): void {
    for (const form of keyForms(KEY)) {
        assert.equal(output.includes(form), false, `${what}: the output holds the key (as ${JSON.stringify(form)})`);
    }
}

describe('sandbox (attacks)', function () {
    this.timeout(60_000);
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-sandbox-')));
    const workspace = join(base, 'workspace');
    // Outside /tmp, which the sandbox replaces anyway: these must be hidden by name, not by luck.
    const outside = realpathSync(mkdtempSync('/var/tmp/qodeassist-sandbox-'));
    const home = join(outside, 'home');
    const stateDir = join(outside, 'state');
    const keyFile = join(outside, 'keys', 'anthropic');
    const backendScript = join(base, 'backend.js');
    const libRoot = resolve(__dirname, '..');
    const backendEnv = () => ({ ...process.env, ANTHROPIC_API_KEY: KEY, HOME: home, QODEASSIST_STATE_DIR: stateDir, ANTHROPIC_API_KEY_FILE: keyFile });
    const context = (signal?: AbortSignal): ToolContext => ({ requestId: 'r', chatId: 'c', files: new WorkspaceFiles([workspace]), signal });
    const allowed = ['cat', 'sh', 'touch', 'git', 'node', 'ls'];

    /** Runs commands through execute_terminal_command in a separate backend process that holds the key in its environment. */
    const throughBackend = (sandbox: SandboxSettings, commands: string[]): Promise<string[]> => new Promise((done, fail) => {
        const child = spawn(process.execPath, [backendScript, libRoot, JSON.stringify({ sandbox, workspace, commands, allowed })], { env: backendEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
        child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
        child.on('close', code => code === 0 ? done(JSON.parse(Buffer.concat(out).toString('utf8'))) : fail(new Error(`backend exited ${code}: ${Buffer.concat(err).toString()}`)));
    });

    before(() => {
        mkdirSync(workspace, { recursive: true });
        mkdirSync(join(home, '.qodeassist'), { recursive: true });
        mkdirSync(join(home, '.ssh'), { recursive: true });
        mkdirSync(join(stateDir, '.qodeassist'), { recursive: true });
        mkdirSync(join(outside, 'keys'), { recursive: true });
        writeFileSync(join(home, '.qodeassist', 'secrets.json'), JSON.stringify({ anthropic: `${FILE_MARKER}-home` }));
        writeFileSync(join(home, '.ssh', 'id_ed25519'), `${FILE_MARKER}-ssh`);
        writeFileSync(join(home, '.netrc'), `machine example.com password ${FILE_MARKER}-netrc`);
        writeFileSync(join(stateDir, '.qodeassist', 'secrets.json'), JSON.stringify({ anthropic: `${FILE_MARKER}-state` }));
        writeFileSync(keyFile, `${FILE_MARKER}-keyfile\n`);
        writeFileSync(join(outside, 'visible.txt'), 'readable system file\n');
        writeFileSync(backendScript, [
            'const [libRoot, request] = [process.argv[2], JSON.parse(process.argv[3])];',
            'const { NodeTerminal } = require(libRoot + "/tools/node-process");',
            'const { createTerminalTool } = require(libRoot + "/tools/process-tools");',
            'const { WorkspaceFiles } = require(libRoot + "/tools/workspace-files");',
            '(async () => {',
            '    const tool = createTerminalTool({ terminal: new NodeTerminal({ sandbox: request.sandbox }), allowed: request.allowed, timeoutMs: 20000 });',
            '    const results = [];',
            '    for (const command of request.commands) {',
            '        results.push((await tool.run({ command }, { requestId: "r", chatId: "c", files: new WorkspaceFiles([request.workspace]) })).content);',
            '    }',
            '    process.stdout.write(JSON.stringify(results));',
            '})().catch(error => { console.error(error); process.exit(1); });'
        ].join('\n'));
        // Starts a grandchild that leaves the group (setsid) and one spawned detached, then exits or waits.
        writeFileSync(join(workspace, 'spawn-detached.js'), 'require("child_process").spawn("sleep", [process.argv[2]], { detached: true, stdio: "ignore" }).unref();\n');
        writeFileSync(join(workspace, 'grandchildren.sh'), [
            'setsid sh -c "exec sleep 60.$1" >/dev/null 2>&1 &',
            'node spawn-detached.js 70.$1',
            'echo started',
            // Exiting, it first gives the test a moment to see both grandchildren running.
            'if [ "$2" = wait ]; then sleep 30; else sleep 1; fi', ''
        ].join('\n'));
    });
    after(() => {
        rmSync(base, { recursive: true, force: true });
        rmSync(outside, { recursive: true, force: true });
    });

    if (process.platform === 'linux') {
        it('bubblewrap starts on this machine (npm test installs it; without it the sandboxed cases below would prove nothing)', async () => {
            assert.equal((await detectSandbox()).kind, 'bubblewrap');
        });

        describe('in bubblewrap', () => {
            it('the backend\'s key cannot be read through /proc: pid 1, the parent, every process, reversed or base64', async () => {
                const results = await throughBackend(SANDBOXED, [
                    'cat /proc/1/environ', 'sh -c "cat /proc/$PPID/environ"', 'sh -c "for f in /proc/[0-9]*/environ; do cat $f; done"',
                    'sh -c "cat /proc/[0-9]*/environ | rev"', 'sh -c "cat /proc/[0-9]*/environ | base64 -w0"', 'sh -c "ls /proc | grep -c ^[0-9]"'
                ]);
                results.forEach((result, index) => assertNoKey(result, `command ${index}`));
                assert.match(results[0], /^\$ cat \/proc\/1\/environ\n\[sandbox: bubblewrap \(pid namespace, read-only system, workspace writable, secrets hidden, network on\)\]\n/);
                assert.match(results[0], /PATH=/, 'pid 1 is the sandbox\'s own, with the scrubbed environment');
                // Only the sandbox's own processes: no ancestor of the command, no other process of the user.
                assert.ok(Number(/\n(\d+)\n+\[exited/.exec(results[5])?.[1]) <= 5, results[5]);
            });

            it('key files and the usual secret folders read as empty; the rest of the system stays readable', async () => {
                const results = await throughBackend(SANDBOXED, [
                    'sh -c "cat ~/.qodeassist/secrets.json"', `cat ${join(stateDir, '.qodeassist', 'secrets.json')}`, `cat ${keyFile}`,
                    'sh -c "cat ~/.ssh/id_ed25519"', 'sh -c "cat ~/.netrc"', `cat ${join(outside, 'visible.txt')}`
                ]);
                results.slice(0, 5).forEach((result, index) => assert.equal(result.includes(FILE_MARKER), false, `command ${index} read a secret: ${result}`));
                assert.match(results[5], /readable system file/);
            });

            it('a command cannot change git\'s config and hooks or the configuration folders in the workspace; the rest of the workspace stays writable', async () => {
                const protectedFiles: Record<string, string> = {
                    '.git/config': '[core]\n\trepositoryformatversion = 0\n', '.git/hooks/README': 'hooks\n', '.vscode/settings.json': '{}\n',
                    '.qodeassist/agents/mine.toml': 'schema_version = 1\n', '.claude/settings.json': '{}\n', '.gitignore': 'node_modules\n'
                };
                for (const [path, text] of Object.entries(protectedFiles)) {
                    mkdirSync(join(workspace, path, '..'), { recursive: true });
                    writeFileSync(join(workspace, path), text);
                }
                const results = await throughBackend(SANDBOXED, [
                    'sh -c "echo fsmonitor=pwned >> .git/config"', 'sh -c "echo evil > .git/hooks/pre-commit"',
                    'sh -c "echo pwned > .vscode/settings.json"', 'sh -c "echo pwned > .qodeassist/agents/evil.toml"',
                    'sh -c "echo pwned > .claude/settings.json"', 'sh -c "echo pwned >> .gitignore"', 'sh -c "echo fine > src-file.txt"'
                ]);
                results.slice(0, 6).forEach((result, index) => assert.match(result, /Read-only file system/, `command ${index}: ${result}`));
                for (const [path, text] of Object.entries(protectedFiles)) {
                    assert.equal(readFileSync(join(workspace, path), 'utf8'), text, `${path} was changed`);
                }
                assert.equal(existsSync(join(workspace, '.git', 'hooks', 'pre-commit')), false);
                assert.equal(existsSync(join(workspace, '.qodeassist', 'agents', 'evil.toml')), false);
                assert.equal(readFileSync(join(workspace, 'src-file.txt'), 'utf8'), 'fine\n');
                rmSync(join(workspace, '.git'), { recursive: true, force: true });
            });

            it('writes outside the workspace fail and leave nothing; writes inside it work', async () => {
                const [outsideTouch, insideTouch] = await throughBackend(SANDBOXED, ['sh -c "touch $HOME/outside-marker"', 'touch inside-marker']);
                assert.match(outsideTouch, /Read-only file system/);
                assert.equal(existsSync(join(home, 'outside-marker')), false, 'a file was written outside the workspace');
                assert.match(insideTouch, /\[exited with code 0\]$/);
                assert.equal(existsSync(join(workspace, 'inside-marker')), true);
            });
        });

        it('the network setting off leaves the command only the loopback interface; on, the machine\'s own', async () => {
            const network = (on: boolean) => createTerminalTool({ terminal: new NodeTerminal({ sandbox: { mode: 'auto', network: on } }), allowed }).run({ command: 'cat /proc/net/dev' }, context());
            const off = await network(false);
            assert.match(off.content, /network off\)\]/);
            const interfaces = (content: string) => [...content.matchAll(/^\s*([\w.-]+):/gm)].map(match => match[1]).sort();
            assert.deepEqual(interfaces(off.content), ['lo']);
            const on = await network(true);
            assert.match(on.content, /network on\)\]/);
            assert.deepEqual(interfaces(on.content), interfaces(readFileSync('/proc/net/dev', 'utf8')), 'on: the machine\'s own interfaces');
        });

        it('control: without the sandbox, the same probe does read the backend\'s key from /proc (the attack is real)', async () => {
            const [parent] = await throughBackend(UNSANDBOXED, ['sh -c "cat /proc/$PPID/environ"']);
            assert.ok(parent.includes(KEY));
            assert.match(parent, /\[sandbox: none — the sandbox is turned off for these commands\]/);
        });
    }

    for (const [name, sandbox] of [['bubblewrap', SANDBOXED], ['no sandbox', UNSANDBOXED]] as const) {
        describe(`grandchildren that leave the process group end with the command (${name})`, () => {
            const tool = createTerminalTool({ terminal: new NodeTerminal({ sandbox }), allowed, timeoutMs: 20_000 });
            const ends: Array<[string, (token: string) => Promise<unknown>]> = [
                ['the command exits', token => tool.run({ command: `sh grandchildren.sh ${token} exit` }, context())],
                ['the command times out', token => tool.run({ command: `sh grandchildren.sh ${token} wait`, timeout_seconds: 6 }, context())],
                ['the call is cancelled', async token => {
                    const controller = new AbortController();
                    const running = tool.run({ command: `sh grandchildren.sh ${token} wait` }, context(controller.signal));
                    // A loaded machine starts node slowly: wait for both before cancelling.
                    await until(() => pidsWith(`70.${token}`).length + pidsWith(`60.${token}`).length, count => count === 2, 20_000);
                    // Let the test's own watcher (every 20 ms) see both before they end.
                    await new Promise(resolve => setTimeout(resolve, 100));
                    controller.abort();
                    await assert.rejects(running, CancelledError);
                }]
            ];
            for (const [end, run] of ends) {
                it(`${end}: the setsid grandchild and the detached one are gone by pid`, async () => {
                    const token = String(Date.now() % 1_000_000);
                    const seen = new Set<number>();
                    const watcher = setInterval(() => [...pidsWith(`60.${token}`), ...pidsWith(`70.${token}`)].forEach(pid => seen.add(pid)), 20);
                    try {
                        await run(token);
                    } finally {
                        clearInterval(watcher);
                    }
                    assert.equal(seen.size >= 2, true, `both grandchildren ran (seen: ${[...seen].join(', ')})`);
                    const left = await until(() => [...seen].filter(pid => pidsWith(token).includes(pid)), pids => pids.length === 0, 3_000);
                    left.forEach(pid => process.kill(pid, 'SIGKILL'));
                    assert.deepEqual(left, [], 'a grandchild is still running');
                });
            }
        });

        it(`a folder shipped as a bare repository does not run its core.fsmonitor on git status (${name})`, async () => {
            const evil = join(workspace, `evil-${name.replace(/\W/g, '')}`);
            const marker = join(workspace, `fsmonitor-ran-${name.replace(/\W/g, '')}`);
            mkdirSync(join(evil, 'objects'), { recursive: true });
            mkdirSync(join(evil, 'refs', 'heads'), { recursive: true });
            writeFileSync(join(evil, 'HEAD'), 'ref: refs/heads/main\n');
            writeFileSync(join(evil, 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = "."\n\tfsmonitor = "touch ${marker}; false"\n`);
            // Control: plain git does run it, so an absent marker below means the defence held.
            execFileSync('git', ['status'], { cwd: evil, env: { PATH: process.env.PATH, HOME: home }, stdio: 'ignore' });
            assert.equal(existsSync(marker), true, 'the fixture is not an attack on this git');
            rmSync(marker);
            const result = await createTerminalTool({ terminal: new NodeTerminal({ sandbox }), allowed }).run({ command: 'git status', cwd: evil.slice(workspace.length + 1) }, context());
            assert.equal(existsSync(marker), false, 'git ran the repository\'s fsmonitor');
            assert.match(result.content, /cannot use bare repository/);
        });

        it(`fim-eval: a case's test command cannot write outside its folder, and its grandchildren end (${name})`, async () => {
            const token = String(Date.now() % 1_000_000);
            const target = join(outside, `fim-wrote-${name.replace(/\W/g, '')}`);
            const script = `touch ${target}; setsid sh -c "exec sleep 80.${token}" >/dev/null 2>&1 & sleep 0.5; echo done`;
            const seen = new Set<number>();
            // The sleep itself (its command line is `sleep\0<n>`), not the shell whose script names it.
            const watcher = setInterval(() => pidsWith(`sleep\u000080.${token}`).forEach(pid => seen.add(pid)), 20);
            const outcome = await runCaseTests({
                id: 'x', language: 'javascript', path: 'a.js', line: 1, prefix: '', suffix: '', expected: '', tests: { command: ['sh', '-c', script] }
            }, '', { terminal: new NodeTerminal({ sandbox }) }).finally(() => clearInterval(watcher));
            assert.equal(outcome?.passed, true);
            if (sandbox === SANDBOXED) {
                assert.equal(existsSync(target), false, 'the test command wrote outside its folder');
            }
            assert.equal(seen.size, 1, 'the grandchild ran');
            const left = await until(() => [...seen].filter(pid => pidsWith(token).includes(pid)), pids => pids.length === 0, 3_000);
            left.forEach(pid => process.kill(pid, 'SIGKILL'));
            assert.deepEqual(left, [], 'the grandchild is still running');
        });
    }
});
