import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INSTALL_ENV, ROOT } from './install.mjs';
import { heading, run } from './run.mjs';

/** Newest modification time below a path (files only), 0 when it does not exist. */
function newestMtime(path) {
    if (!existsSync(path)) {
        return 0;
    }
    const stat = statSync(path);
    if (!stat.isDirectory()) {
        return stat.mtimeMs;
    }
    let newest = 0;
    for (const entry of readdirSync(path)) {
        if (entry !== 'node_modules') {
            newest = Math.max(newest, newestMtime(join(path, entry)));
        }
    }
    return newest;
}

const TS_PACKAGES = ['qodeassist-core', 'qodeassist-theia', 'test', 'browser-app/example'];

/** tsc -b never deletes the output of a removed source; a stale spec would still run. */
function removeStaleOutputs(libDir, srcDir) {
    if (!existsSync(libDir)) {
        return;
    }
    for (const entry of readdirSync(libDir, { withFileTypes: true })) {
        const lib = join(libDir, entry.name);
        if (entry.isDirectory()) {
            removeStaleOutputs(lib, join(srcDir, entry.name));
            continue;
        }
        const stem = entry.name.replace(/(\.d)?\.(js|ts)(\.map)?$/, '');
        // A source that is only a declaration (`.d.ts`) stands for a file a build step writes into lib.
        if (stem !== entry.name && !['ts', 'tsx', 'd.ts'].some(extension => existsSync(join(srcDir, `${stem}.${extension}`)))) {
            rmSync(lib);
        }
    }
}

export async function compileTypeScript() {
    for (const pkg of TS_PACKAGES) {
        removeStaleOutputs(join(ROOT, pkg, 'lib'), join(ROOT, pkg, 'src'));
    }
    heading('Compiling TypeScript (tsc -b)');
    return await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'tsconfig.json'], { cwd: ROOT }) === 0
        // The chat's code highlighter runs in a worker, bundled from tsc's output as script text.
        && await run(process.execPath, [join(ROOT, 'qodeassist-theia', 'scripts', 'bundle-highlight-worker.mjs')], { cwd: ROOT }) === 0;
}

const APP_INPUTS = ['qodeassist-core/lib', 'qodeassist-theia/lib', 'qodeassist-theia/src/browser/style', 'browser-app/example/lib', 'package-lock.json'];

/** Bundles a Theia application unless nothing it is built from changed since its last bundle. */
export async function buildTheiaApp(app) {
    const appDir = join(ROOT, app);
    const stamp = join(appDir, 'lib', '.qodeassist-build-stamp');
    const inputs = Math.max(newestMtime(join(appDir, 'package.json')), newestMtime(join(appDir, 'scripts')),
        ...APP_INPUTS.map(input => newestMtime(join(ROOT, input))));
    if (existsSync(stamp) && statSync(stamp).mtimeMs >= inputs) {
        console.log(`${app} is up to date.`);
        return true;
    }
    heading(`Building ${app}`);
    const ok = await run('npm', ['run', 'build'], { cwd: appDir, env: INSTALL_ENV }) === 0;
    if (ok) {
        writeFileSync(stamp, new Date().toISOString());
    }
    return ok;
}
