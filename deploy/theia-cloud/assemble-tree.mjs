// The runtime tree of the browser app, made from the workspaces' own manifests: the app's production
// bundle, the files each runtime workspace publishes (its package.json "files", less specs), and their
// production dependencies installed by `npm ci --omit=dev` from the repository's package-lock.json —
// so the workspace links (@qodeassist/core, agents, providers) are there as npm makes them, and
// nothing comes from whatever a developer's node_modules happens to hold.
// Usage: node assemble-tree.mjs SOURCE DEST   (SOURCE: a repository whose browser-app is built)
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** What the backend loads outside its bundle: core (the MCP bridge, bin/), and the bundled agents and providers it reads. */
const RUNTIME_WORKSPACES = ['qodeassist-core', 'agents', 'providers'];
const APP = 'browser-app';
/** Specs and their outputs are not part of what runs. */
const SPEC = /\.spec\.(js|d\.ts|js\.map|d\.ts\.map|ts)$/;

function fail(message) {
    console.error(`build-tree: ${message}`);
    process.exit(1);
}

const [source, destArg] = process.argv.slice(2).map(path => path && resolve(path));
if (!source || !destArg) {
    fail('usage: node assemble-tree.mjs SOURCE DEST');
}
const dest = destArg;
if (!existsSync(join(source, APP, 'lib', 'backend', 'main.js'))) {
    fail(`${join(source, APP)} is not built; run deploy/theia-cloud/build-tree.sh (or npm run build) first`);
}
const rootManifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
const workspaces = rootManifest.workspaces ?? [];
const missing = [...RUNTIME_WORKSPACES, APP].filter(name => !workspaces.includes(name));
if (missing.length) {
    fail(`the root package.json does not list the workspaces ${missing.join(', ')}; this script names the runtime workspaces and must follow a rename`);
}

rmSync(dest, { recursive: true, force: true });
mkdirSync(dest, { recursive: true });
// The lock and every workspace's manifest: npm ci checks the lock against all of them.
cpSync(join(source, 'package.json'), join(dest, 'package.json'));
cpSync(join(source, 'package-lock.json'), join(dest, 'package-lock.json'));
for (const workspace of workspaces) {
    mkdirSync(join(dest, workspace), { recursive: true });
    cpSync(join(source, workspace, 'package.json'), join(dest, workspace, 'package.json'));
}
// Each runtime workspace as npm would publish it.
for (const workspace of RUNTIME_WORKSPACES) {
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--workspace', workspace],
        { cwd: source, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    for (const { path } of packed.files) {
        if (!SPEC.test(path)) {
            mkdirSync(dirname(join(dest, workspace, path)), { recursive: true });
            cpSync(join(source, workspace, path), join(dest, workspace, path));
        }
    }
}
// The app: its production bundle (backend, frontend, native modules) and the generated entry points.
for (const part of ['lib', 'src-gen']) {
    cpSync(join(source, APP, part), join(dest, APP, part), { recursive: true });
}
rmSync(join(dest, APP, 'lib', '.qodeassist-build-stamp'), { force: true });
// No install script runs: core's production dependencies are plain JavaScript.
execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline',
    ...RUNTIME_WORKSPACES.flatMap(workspace => ['--workspace', workspace])], { cwd: dest, stdio: 'inherit' });
// The other workspaces were only manifests for npm ci; nothing links to them.
for (const workspace of workspaces.filter(name => !RUNTIME_WORKSPACES.includes(name) && name !== APP)) {
    rmSync(join(dest, workspace), { recursive: true, force: true });
}
console.log(`build-tree: runtime tree in ${dest}`);
