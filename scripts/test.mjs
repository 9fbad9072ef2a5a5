// `npm test`: installs what is missing, builds everything (both Theia apps included),
// lints, runs the layering check with all unit and integration tests, then the
// end-to-end tests in Chromium, and ends with one line: `N passed, N failed`.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildTheiaApp, compileTypeScript } from './lib/build.mjs';
import { ensureInstalled, ROOT } from './lib/install.mjs';
import { BUILD_PACKAGES, ensureSystemPackages, TEST_PACKAGES } from './lib/prerequisites.mjs';
import { heading, run } from './lib/run.mjs';

const RESULTS_DIR = join(ROOT, 'test', '.results');
const MOCHA = join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
const REPORTER = join(ROOT, 'scripts', 'mocha-summary-reporter.cjs');

let passed = 0;
let failed = 0;

/** A build or lint step counts as one check. */
function count(ok) {
    if (ok) {
        passed++;
    } else {
        failed++;
    }
    return ok;
}

async function mocha(name, specs, timeoutMs) {
    heading(`Tests: ${name}`);
    const results = join(RESULTS_DIR, `${name}.json`);
    rmSync(results, { force: true });
    const code = await run(process.execPath, [MOCHA, '--reporter', REPORTER, '--timeout', String(timeoutMs), '--exit', ...specs],
        { cwd: ROOT, env: { QODEASSIST_RESULTS: results } });
    if (!existsSync(results)) {
        console.error(`The ${name} test run ended (exit ${code}) before reporting results.`);
        failed++;
        return;
    }
    const stats = JSON.parse(readFileSync(results, 'utf8'));
    passed += stats.passes;
    failed += stats.failures;
    if (code !== 0 && stats.failures === 0) {
        failed++;
    }
}

function finish() {
    console.log(`\n${passed} passed, ${failed} failed`);
    process.exit(failed > 0 ? 1 : 0);
}

mkdirSync(RESULTS_DIR, { recursive: true });
const prepared = count(await ensureSystemPackages([...BUILD_PACKAGES, ...TEST_PACKAGES]))
    && count(await ensureInstalled())
    && count(await compileTypeScript());
if (!prepared) {
    finish();
}
const browserBuilt = count(await buildTheiaApp('browser-app'));
count(await buildTheiaApp('electron-app'));

heading('Lint (ESLint)');
count(await run('npm', ['run', '--silent', 'lint'], { cwd: ROOT }) === 0);

await mocha('unit-and-integration', [
    'qodeassist-core/lib/**/*.spec.js',
    'qodeassist-theia/lib/**/*.spec.js',
    'browser-app/example/lib/**/*.spec.js',
    'test/lib/**/*.spec.js'
], 20_000);

if (browserBuilt) {
    await mocha('e2e', ['test/lib/e2e/**/*.e2e.js'], 180_000);
} else {
    console.error('Skipping the end-to-end tests: browser-app did not build.');
    failed++;
}
finish();
