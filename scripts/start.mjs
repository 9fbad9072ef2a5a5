// `npm start`: installs what is missing, builds what changed, and serves the browser app.
// Usage: npm start [-- WORKSPACE_DIR]   (PORT=3000 and HOST=127.0.0.1 by default)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildTheiaApp, compileTypeScript } from './lib/build.mjs';
import { ensureInstalled, ROOT } from './lib/install.mjs';
import { BUILD_PACKAGES, ensureSystemPackages } from './lib/prerequisites.mjs';

const workspaceArg = process.argv[2];
const workspace = resolve(process.env.INIT_CWD ?? process.cwd(), workspaceArg ?? '.');
if (!existsSync(workspace)) {
    console.error(`The workspace folder ${workspace} does not exist.`);
    process.exit(2);
}

const ok = await ensureSystemPackages(BUILD_PACKAGES)
    && await ensureInstalled()
    && await compileTypeScript()
    && await buildTheiaApp('browser-app');
if (!ok) {
    process.exit(1);
}

const port = process.env.PORT ?? '3000';
const host = process.env.HOST ?? '127.0.0.1';
console.log(`\nQodeAssist for Theia: open http://${host}:${port} (workspace ${workspace}). Ctrl+C stops it.`);
const server = spawn(process.execPath, [join(ROOT, 'browser-app', 'lib', 'backend', 'main.js'), workspace, `--hostname=${host}`, `--port=${port}`],
    { stdio: 'inherit', cwd: join(ROOT, 'browser-app') });
for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => server.kill(signal));
}
server.on('exit', code => process.exit(code ?? 0));
