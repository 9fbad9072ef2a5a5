// `npm run bench [wire|context|search|long-run|mcp|chat|hostile|completion|completion-context|load|checkpoints]`: builds what changed (the browser-app too, for the chat view in Chromium, but not for `completion-context`, which needs no app; for `completion` also test/theia-ai-app, Theia with its own AI completion), then runs the benchmarks and rewrites their sections of BENCHMARKS.md.
import { join } from 'node:path';
import { buildTheiaApp, compileTypeScript } from './lib/build.mjs';
import { ensureInstalled, ROOT } from './lib/install.mjs';
import { BUILD_PACKAGES, ensureSystemPackages, TEST_PACKAGES } from './lib/prerequisites.mjs';
import { run } from './lib/run.mjs';

const ok = await ensureSystemPackages([...BUILD_PACKAGES, ...TEST_PACKAGES]) && await ensureInstalled() && await compileTypeScript()
    && (process.argv[2] === 'completion-context' || await buildTheiaApp('browser-app')) && (process.argv[2] !== 'completion' || await buildTheiaApp(join('test', 'theia-ai-app')));
if (!ok) {
    process.exit(1);
}
process.exit(await run(process.execPath, [join(ROOT, 'test', 'lib', 'bench', 'run-benchmarks.js'), ...process.argv.slice(2)], { cwd: ROOT }));
