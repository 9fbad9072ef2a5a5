// `npm run bench [wire]`: builds what changed, then runs the benchmarks and rewrites their sections of BENCHMARKS.md.
import { join } from 'node:path';
import { compileTypeScript } from './lib/build.mjs';
import { ensureInstalled, ROOT } from './lib/install.mjs';
import { BUILD_PACKAGES, ensureSystemPackages } from './lib/prerequisites.mjs';
import { run } from './lib/run.mjs';

const ok = await ensureSystemPackages(BUILD_PACKAGES) && await ensureInstalled() && await compileTypeScript();
if (!ok) {
    process.exit(1);
}
process.exit(await run(process.execPath, [join(ROOT, 'test', 'lib', 'bench', 'run-benchmarks.js'), ...process.argv.slice(2)], { cwd: ROOT }));
