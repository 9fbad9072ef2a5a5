import * as assert from 'node:assert/strict';
import { childEnvironment, environmentValue, GIT_SAFETY, looksLikeSecret, withGitSafety } from './child-environment';

describe('childEnvironment', () => {
    it('passes what programs and toolchains need and nothing else', () => {
        const source = {
            PATH: '/usr/local/bin:/usr/bin', HOME: '/home/ada', LANG: 'en_GB.UTF-8', LC_ALL: 'C', TERM: 'xterm-256color', TZ: 'Europe/Berlin',
            JAVA_HOME: '/opt/jdk', GOPATH: '/home/ada/go', CARGO_HOME: '/home/ada/.cargo', VIRTUAL_ENV: '/home/ada/venv', CFLAGS: '-O2 -g',
            XDG_CONFIG_HOME: '/home/ada/.config', PKG_CONFIG_PATH: '/usr/lib/pkgconfig',
            NODE_OPTIONS: '--require /tmp/x.js', RIPGREP_CONFIG_PATH: '/repo/.rgrc', SSH_AUTH_SOCK: '/tmp/agent', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/bus',
            EMPTY: undefined
        };
        assert.deepEqual(childEnvironment(source, { platform: 'linux' }), {
            PATH: '/usr/local/bin:/usr/bin', HOME: '/home/ada', LANG: 'en_GB.UTF-8', LC_ALL: 'C', TERM: 'xterm-256color', TZ: 'Europe/Berlin',
            JAVA_HOME: '/opt/jdk', GOPATH: '/home/ada/go', CARGO_HOME: '/home/ada/.cargo', VIRTUAL_ENV: '/home/ada/venv', CFLAGS: '-O2 -g',
            XDG_CONFIG_HOME: '/home/ada/.config', PKG_CONFIG_PATH: '/usr/lib/pkgconfig'
        });
    });

    const credentialNames = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'QODEASSIST_MCP_TOKEN', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'AWS_ACCESS_KEY_ID',
        'DB_PASSWORD', 'GOOGLE_APPLICATION_CREDENTIALS', 'SIGNING_KEY_FILE', 'MISTRALAPIKEY', 'NPM_CONFIG__AUTH'];
    for (const name of credentialNames) {
        it(`never passes ${name}, even when a caller allows the name`, () => {
            assert.deepEqual(childEnvironment({ [name]: 'plain-value', HOME: '/h' }, { allow: [name], platform: 'linux' }), { HOME: '/h' });
        });
    }

    const secretValues: [string, string][] = [
        ['an OpenAI-shaped key', 'sk-proj-abcdefghijklmnop1234'],
        ['an Anthropic-shaped key', 'sk-ant-api03-abcdefghijkl'],
        ['a GitHub token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
        ['a random 40-character token', 'Zx81kLmNoPqRsTuVwXyZ0123456789abcdefGHIJ'],
        ['a proxy URL with a password', 'http://ada:hunter2@proxy.local:3128'],
        ['a private key', '-----BEGIN OPENSSH PRIVATE KEY-----\nabc']
    ];
    for (const [what, value] of secretValues) {
        it(`drops an allowed variable whose value is ${what}`, () => {
            assert.equal(looksLikeSecret(value), true);
            assert.deepEqual(childEnvironment({ HTTPS_PROXY: value, TERM: value, HOME: '/h' }, { platform: 'linux' }), { HOME: '/h' });
        });
    }

    it('keeps ordinary values that only resemble tokens: paths, flags and proxies without credentials', () => {
        const source = {
            PATH: '/home/ada/.local/share/virtualenvs/project-Zx81kLmN/bin:/usr/bin', CFLAGS: '-DKEY_SIZE=32 -O2', HTTPS_PROXY: 'http://proxy.local:3128',
            LANG: 'C.UTF-8'
        };
        assert.deepEqual(childEnvironment(source, { platform: 'linux' }), source);
    });

    it('drops an allowed variable that holds or contains a known secret value', () => {
        const known = 'correct horse battery staple';
        const source = { LANG: known, TERM: `xterm ${known}`, TZ: 'abcd', LANGUAGE: 'en abcd', HOME: '/h' };
        // A short secret is dropped only as the whole value: as a substring it would match ordinary text.
        assert.deepEqual(childEnvironment(source, { secrets: [known, 'abcd', ''], platform: 'linux' }), { LANGUAGE: 'en abcd', HOME: '/h' });
    });

    it('matches Windows names case-insensitively and passes the Windows system variables only there', () => {
        const source = { Path: 'C:\\Windows\\system32', SystemRoot: 'C:\\Windows', ComSpec: 'C:\\Windows\\system32\\cmd.exe', 'ProgramFiles(x86)': 'C:\\Program Files (x86)', Openai_Api_Key: 'x' };
        assert.deepEqual(childEnvironment(source, { platform: 'win32' }), {
            Path: 'C:\\Windows\\system32', SystemRoot: 'C:\\Windows', ComSpec: 'C:\\Windows\\system32\\cmd.exe', 'ProgramFiles(x86)': 'C:\\Program Files (x86)'
        });
        assert.deepEqual(childEnvironment(source, { platform: 'linux' }), {});
        assert.equal(environmentValue(source, 'PATH', 'win32'), 'C:\\Windows\\system32');
        assert.equal(environmentValue(source, 'PATH', 'linux'), undefined);
    });

    it('withGitSafety: every command gets git\'s command-line config that no repository beats, and a caller\'s own git config variables cannot replace it', () => {
        const env = withGitSafety({ HOME: '/h', GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='touch /tmp/x'", GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: 'touch /tmp/x', GIT_CONFIG_KEY_7: 'core.pager' });
        assert.deepEqual(env, {
            HOME: '/h', GIT_CONFIG_COUNT: '4',
            GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: 'false',
            GIT_CONFIG_KEY_1: 'core.hooksPath', GIT_CONFIG_VALUE_1: '/dev/null',
            GIT_CONFIG_KEY_2: 'safe.bareRepository', GIT_CONFIG_VALUE_2: 'explicit',
            GIT_CONFIG_KEY_3: 'protocol.ext.allow', GIT_CONFIG_VALUE_3: 'never'
        });
        assert.equal(GIT_SAFETY.length, 4);
    });
});
