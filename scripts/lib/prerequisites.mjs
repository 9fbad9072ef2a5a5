import { execFileSync } from 'node:child_process';
import { heading, run } from './run.mjs';

/** Debian packages the native modules need to compile: keytar (libsecret), native-keymap (xkbfile, X11). */
export const BUILD_PACKAGES = ['libsecret-1-dev', 'libxkbfile-dev', 'libx11-dev', 'pkg-config', 'python3', 'make', 'g++'];
/**
 * What the end-to-end tests drive; ripgrep, which search_project uses when present (both engines are tested); a D-Bus session and gnome-keyring for the keyring test;
 * bubblewrap, the sandbox commands run in (its attack specs run both with it and without).
 */
export const TEST_PACKAGES = ['chromium', 'ripgrep', 'dbus', 'gnome-keyring', 'bubblewrap'];

function missingPackages(packages) {
    return packages.filter(name => {
        try {
            const status = execFileSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
            return !status.includes('install ok installed');
        } catch {
            return true;
        }
    });
}

function hasDpkg() {
    try {
        execFileSync('dpkg-query', ['--version'], { stdio: 'ignore' });
        return true;
    } catch {
        return false;
    }
}

/**
 * Installs missing Debian packages with apt-get when running as root; otherwise
 * prints the exact command and fails, because the npm install cannot succeed without them.
 */
export async function ensureSystemPackages(packages) {
    if (!hasDpkg()) {
        console.log(`Not a Debian-based system: make sure the equivalents of ${packages.join(', ')} are installed.`);
        return true;
    }
    const missing = missingPackages(packages);
    if (missing.length === 0) {
        return true;
    }
    const command = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`;
    if (process.getuid?.() !== 0) {
        console.error(`Missing system packages: ${missing.join(', ')}.\nInstall them with:\n  sudo sh -c '${command}'`);
        return false;
    }
    heading(`Installing system packages: ${missing.join(', ')}`);
    const env = { DEBIAN_FRONTEND: 'noninteractive' };
    if (await run('apt-get', ['update'], { env }) !== 0
        || await run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env }) !== 0) {
        console.error(`apt-get could not install ${missing.join(', ')}. Run it by hand:\n  ${command}`);
        return false;
    }
    return true;
}
