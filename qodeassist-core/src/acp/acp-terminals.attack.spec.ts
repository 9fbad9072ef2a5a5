import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SandboxSettings } from '../tools/sandbox';
import { WorkspaceFiles } from '../tools/workspace-files';
import { keyForms, pidsWith, until } from '../tools/process-attack.spec-support';
import { AcpTerminals } from './acp-terminals';

/**
 * An external agent's `terminal/create` commands, attacked as the terminal tool's are: the
 * backend's key through /proc, the user's key files, a write outside the workspace, a grandchild
 * that left the process group, a repository's git fsmonitor. The backend is a real second process
 * whose environment holds the key from its start.
 */
const KEY = 'sk-ant-MARKER-acp-3e9d1c7b5a2f4e6d8c0b';
const FILE_MARKER = 'ACP-FILE-MARKER-6b1d9f3a';
const SANDBOXED: SandboxSettings = { mode: 'auto' };
const UNSANDBOXED: SandboxSettings = { mode: 'off' };

describe('ACP terminals (attacks)', function () {
    this.timeout(60_000);
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-acp-sandbox-')));
    const workspace = join(base, 'workspace');
    const outside = realpathSync(mkdtempSync('/var/tmp/qodeassist-acp-sandbox-'));
    const home = join(outside, 'home');
    const backendScript = join(base, 'backend.js');
    const libRoot = resolve(__dirname, '..');
    const terminals = (sandbox: SandboxSettings) => new AcpTerminals({ files: new WorkspaceFiles([workspace]), maxTerminals: 4, maxOutputBytes: 1_000_000, maxSeconds: 8, sandbox });

    /** Runs each command line through terminal/create in a backend process holding the key, and returns the outputs. */
    const throughBackend = (sandbox: SandboxSettings, commands: string[]): Promise<string[]> => new Promise((done, fail) => {
        const env = { ...process.env, ANTHROPIC_API_KEY: KEY, HOME: home };
        const child = spawn(process.execPath, [backendScript, libRoot, JSON.stringify({ sandbox, workspace, commands })], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
        child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
        child.on('close', code => code === 0 ? done(JSON.parse(Buffer.concat(out).toString('utf8'))) : fail(new Error(`backend exited ${code}: ${Buffer.concat(err).toString()}`)));
    });

    before(() => {
        mkdirSync(workspace, { recursive: true });
        mkdirSync(join(home, '.qodeassist'), { recursive: true });
        writeFileSync(join(home, '.qodeassist', 'secrets.json'), JSON.stringify({ anthropic: FILE_MARKER }));
        writeFileSync(backendScript, [
            'const [libRoot, request] = [process.argv[2], JSON.parse(process.argv[3])];',
            'const { AcpTerminals } = require(libRoot + "/acp/acp-terminals");',
            'const { WorkspaceFiles } = require(libRoot + "/tools/workspace-files");',
            '(async () => {',
            '    const terminals = new AcpTerminals({ files: new WorkspaceFiles([request.workspace]), maxTerminals: 4, maxOutputBytes: 1000000, maxSeconds: 20, sandbox: request.sandbox });',
            '    const outputs = [];',
            '    for (const command of request.commands) {',
            '        const id = await terminals.create("s", { command });',
            '        await terminals.waitForExit("s", id);',
            '        outputs.push(terminals.output("s", id).output);',
            '        await terminals.release("s", id);',
            '    }',
            '    process.stdout.write(JSON.stringify(outputs));',
            '})().catch(error => { console.error(error); process.exit(1); });'
        ].join('\n'));
        writeFileSync(join(workspace, 'grandchildren.sh'), 'setsid sh -c "exec sleep 60.$1" >/dev/null 2>&1 &\necho started\nsleep 30\n');
    });
    after(() => {
        rmSync(base, { recursive: true, force: true });
        rmSync(outside, { recursive: true, force: true });
    });

    if (process.platform === 'linux') {
        it('in bubblewrap: no key through /proc (pid 1, the parent, every process; reversed, base64), no key file, no write outside the workspace', async () => {
            const outputs = await throughBackend(SANDBOXED, [
                'cat /proc/1/environ', 'cat /proc/$PPID/environ', 'for f in /proc/[0-9]*/environ; do cat $f; done', 'cat /proc/[0-9]*/environ | rev',
                'cat /proc/[0-9]*/environ | base64 -w0', 'cat ~/.qodeassist/secrets.json', 'touch ~/outside-marker', 'touch inside-marker && echo wrote-inside'
            ]);
            outputs.forEach((output, index) => keyForms(KEY).forEach(form => assert.equal(output.includes(form), false, `command ${index} printed the key`)));
            assert.equal(outputs[5].includes(FILE_MARKER), false, 'the secrets file was read');
            assert.match(outputs[6], /Read-only file system/);
            assert.equal(existsSync(join(home, 'outside-marker')), false, 'a file was written outside the workspace');
            assert.match(outputs[7], /wrote-inside/);
        });

        it('control: without the sandbox the parent\'s environment does hold the key (the probe is real)', async () => {
            const [parent] = await throughBackend(UNSANDBOXED, ['cat /proc/$PPID/environ']);
            assert.ok(parent.includes(KEY));
        });
    }

    for (const [name, sandbox] of [['bubblewrap', SANDBOXED], ['no sandbox', UNSANDBOXED]] as const) {
        const ends: Array<[string, (terminals: AcpTerminals, id: string) => Promise<unknown>]> = [
            ['terminal/kill', (terminals, id) => terminals.kill('s', id)],
            ['terminal/release', (terminals, id) => terminals.release('s', id)],
            ['the time limit', (terminals, id) => terminals.waitForExit('s', id)],
            ['the session\'s cancel', async (terminals, id) => {
                terminals.killSession('s');
                await terminals.waitForExit('s', id);
            }]
        ];
        for (const [end, stop] of ends) {
            it(`${end} ends a grandchild that called setsid (${name})`, async () => {
                const token = String(Date.now() % 1_000_000);
                const all = terminals(sandbox);
                const id = await all.create('s', { command: 'sh', args: ['grandchildren.sh', token], cwd: workspace });
                const seen = await until(() => pidsWith(`60.${token}`), pids => pids.length > 0, 20_000);
                assert.equal(seen.length, 1, 'the grandchild ran');
                await stop(all, id);
                const left = await until(() => seen.filter(pid => pidsWith(token).includes(pid)), pids => pids.length === 0, 3_000);
                left.forEach(pid => process.kill(pid, 'SIGKILL'));
                await all.dispose();
                assert.deepEqual(left, [], 'the grandchild is still running');
            });
        }

        it(`git status in a folder shipped as a bare repository does not run its fsmonitor (${name})`, async () => {
            const evil = join(workspace, `evil-${name.replace(/\W/g, '')}`);
            const marker = join(workspace, `fsmonitor-ran-${name.replace(/\W/g, '')}`);
            mkdirSync(join(evil, 'objects'), { recursive: true });
            mkdirSync(join(evil, 'refs', 'heads'), { recursive: true });
            writeFileSync(join(evil, 'HEAD'), 'ref: refs/heads/main\n');
            writeFileSync(join(evil, 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = "."\n\tfsmonitor = "touch ${marker}; false"\n`);
            const all = terminals(sandbox);
            // The agent's own variables cannot switch the protection off.
            const id = await all.create('s', { command: 'git', args: ['status'], cwd: evil, env: [{ name: 'GIT_CONFIG_PARAMETERS', value: '\'safe.bareRepository\'=\'all\'' }, { name: 'GIT_CONFIG_COUNT', value: '0' }] });
            await all.waitForExit('s', id);
            const output = all.output('s', id).output;
            await all.dispose();
            assert.equal(existsSync(marker), false, 'git ran the repository\'s fsmonitor');
            assert.match(output, /cannot use bare repository/);
        });
    }
});
