import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { heading, run } from './run.mjs';

export const ROOT = join(import.meta.dirname, '..', '..');
const STAMP = join(ROOT, 'node_modules', '.qodeassist-install-stamp');
const MANIFESTS = ['package.json', 'package-lock.json', 'qodeassist-core/package.json', 'qodeassist-theia/package.json',
    'agents/package.json', 'providers/package.json', 'test/package.json', 'browser-app/package.json', 'electron-app/package.json'];

/** Downloads that cannot work offline and are not needed: Puppeteer's browser (we use Debian's Chromium) and Electron's binary. */
export const INSTALL_ENV = { PUPPETEER_SKIP_DOWNLOAD: '1', ELECTRON_SKIP_BINARY_DOWNLOAD: '1' };

function manifestHash() {
    const hash = createHash('sha256');
    for (const file of MANIFESTS) {
        const path = join(ROOT, file);
        hash.update(file).update(existsSync(path) ? readFileSync(path) : '');
    }
    hash.update(process.version);
    return hash.digest('hex');
}

/** Installs dependencies unless the manifests and Node version are unchanged since the last install. */
export async function ensureInstalled() {
    const expected = manifestHash();
    if (existsSync(STAMP) && readFileSync(STAMP, 'utf8') === expected) {
        return true;
    }
    heading('Installing npm dependencies');
    const useCi = existsSync(join(ROOT, 'package-lock.json'));
    const code = await run('npm', [useCi ? 'ci' : 'install'], { cwd: ROOT, env: INSTALL_ENV });
    if (code !== 0) {
        console.error('npm install failed; see the output above.');
        return false;
    }
    writeFileSync(STAMP, manifestHash());
    return true;
}
