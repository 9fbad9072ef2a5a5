import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUBBLEWRAP_ISOLATION, bubblewrapArgs, existingHiddenPaths, secretPathCandidates } from './bubblewrap-args';
import { NOT_SANDBOXED, probeSandbox, sandboxFor, sandboxLabel } from './sandbox';

describe('sandbox', () => {
    describe('bubblewrapArgs', () => {
        const plan = {
            writable: ['/work/repo'], cwd: '/work/repo/src', network: true,
            hidden: [{ path: '/home/ada/.ssh', kind: 'folder' as const }, { path: '/home/ada/.netrc', kind: 'file' as const }]
        };

        it('binds / read-only, gives a private /tmp and its own namespaces, binds the roots writable, then covers the secrets, and runs the program in cwd', () => {
            assert.deepEqual(bubblewrapArgs(plan, '/usr/bin/git', ['status']), [
                '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', ...BUBBLEWRAP_ISOLATION,
                '--bind', '/work/repo', '/work/repo',
                '--tmpfs', '/home/ada/.ssh', '--ro-bind', '/dev/null', '/home/ada/.netrc',
                '--chdir', '/work/repo/src', '--', '/usr/bin/git', 'status'
            ]);
            assert.deepEqual(BUBBLEWRAP_ISOLATION, ['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--new-session', '--cap-drop', 'ALL']);
        });

        it('cuts the network only when asked', () => {
            assert.equal(bubblewrapArgs(plan, '/bin/true', []).includes('--unshare-net'), false);
            assert.equal(bubblewrapArgs({ ...plan, network: false }, '/bin/true', []).includes('--unshare-net'), true);
        });

        it('covers a secret folder that holds a root before binding the root, so the root shows and its siblings stay hidden; skips what /tmp hides already', () => {
            const args = bubblewrapArgs({
                writable: ['/home/ada/.qodeassist/skills-repo'], cwd: '/home/ada/.qodeassist/skills-repo', network: true,
                hidden: [{ path: '/home/ada/.qodeassist', kind: 'folder' }, { path: '/tmp/ada-keys', kind: 'folder' }]
            }, '/bin/ls', []);
            const cover = args.indexOf('/home/ada/.qodeassist');
            const bind = args.indexOf('--bind');
            assert.equal(args[cover - 1], '--tmpfs');
            assert.ok(cover < bind, 'the cover comes before the root\'s bind');
            assert.equal(args.includes('/tmp/ada-keys'), false);
        });
    });

    describe('secret places', () => {
        it('names the state dir\'s and the home\'s .qodeassist, key files named by *_KEY_FILE, the managed folder, the runtime dir and the usual credential folders', () => {
            const env = {
                HOME: '/home/ada', QODEASSIST_STATE_DIR: '/data/state', ANTHROPIC_API_KEY_FILE: '/run/secrets/anthropic', GITHUB_TOKEN_FILE: '/run/secrets/gh',
                QODEASSIST_MANAGED_DIR: '/etc/qodeassist', XDG_RUNTIME_DIR: '/run/user/1000', LANG_FILE: '/not/a/key',
                GOOGLE_APPLICATION_CREDENTIALS: '/home/ada/gcp.json', OPENAI_API_KEY: 'sk-not-a-path'
            };
            const candidates = secretPathCandidates(env, ['/home/ada']);
            for (const expected of ['/home/ada/.qodeassist', '/data/state/.qodeassist', '/run/secrets/anthropic', '/run/secrets/gh', '/home/ada/gcp.json', '/etc/qodeassist', '/run/user/1000',
                '/home/ada/.ssh', '/home/ada/.aws', '/home/ada/.config/gcloud', '/home/ada/.azure', '/home/ada/.docker', '/home/ada/.kube', '/home/ada/.gnupg',
                '/home/ada/.netrc', '/home/ada/.npmrc', '/home/ada/.pypirc', '/home/ada/.git-credentials', '/home/ada/.config/gh', '/home/ada/.local/share/keyrings']) {
                assert.ok(candidates.includes(expected), expected);
            }
            assert.equal(candidates.includes('/not/a/key'), false);
            assert.equal(candidates.includes('sk-not-a-path'), false);
        });

        it('keeps only places that exist, a folder as a folder and a file as a file, and adds a link\'s real path', async () => {
            const root = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-hidden-')));
            try {
                mkdirSync(join(root, 'real-ssh'));
                symlinkSync(join(root, 'real-ssh'), join(root, '.ssh'));
                writeFileSync(join(root, '.netrc'), 'x');
                const found = await existingHiddenPaths([join(root, '.ssh'), join(root, '.netrc'), join(root, '.aws')]);
                assert.deepEqual(found, [
                    { path: join(root, '.ssh'), kind: 'folder' }, { path: join(root, 'real-ssh'), kind: 'folder' }, { path: join(root, '.netrc'), kind: 'file' }
                ]);
            } finally {
                rmSync(root, { recursive: true, force: true });
            }
        });
    });

    describe('availability', () => {
        it('is none, naming why and how to enable it, without bwrap or off Linux', async () => {
            const missing = await probeSandbox('linux', ['/nonexistent/bwrap']);
            assert.deepEqual(missing, { kind: 'none', reason: 'bubblewrap (bwrap) is not installed' });
            assert.match(sandboxLabel(missing, {}, 'linux'), new RegExp(`^none — ${NOT_SANDBOXED} \\(bubblewrap \\(bwrap\\) is not installed\\)\\. Install bubblewrap .*unprivileged user namespaces`));
            assert.deepEqual(await probeSandbox('darwin'), { kind: 'none', reason: 'no sandbox is available on darwin' });
        });

        it('names the bubblewrap sandbox and its network in the header', () => {
            const bwrap = { kind: 'bubblewrap' as const, program: '/usr/bin/bwrap', canCutNetwork: true };
            assert.equal(sandboxLabel(bwrap), 'bubblewrap (pid namespace, read-only system, workspace writable, secrets hidden, network on)');
            assert.equal(sandboxLabel(bwrap, { network: false }), 'bubblewrap (pid namespace, read-only system, workspace writable, secrets hidden, network off)');
            assert.match(sandboxLabel({ ...bwrap, canCutNetwork: false }, { network: false }), /network on: it could not be cut here\)$/);
        });

        it('\'off\' is no sandbox whatever the machine offers', async () => {
            assert.deepEqual(await sandboxFor({ mode: 'off' }), { kind: 'none', reason: 'the sandbox is turned off for these commands', turnedOff: true });
        });
    });
});
