// `npm run golden:update`: re-renders every bundled agent against the synthetic context into agents/golden/.
import { join } from 'node:path';
import { compileTypeScript } from './lib/build.mjs';
import { ensureInstalled, ROOT } from './lib/install.mjs';
import { run } from './lib/run.mjs';

if (!(await ensureInstalled() && await compileTypeScript())) {
    process.exit(1);
}
process.exit(await run(process.execPath, [join(ROOT, 'test', 'lib', 'config', 'golden-bodies.js')], { cwd: ROOT }));
