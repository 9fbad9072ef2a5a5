// `npm run build`: compiles every package and bundles both Theia applications (skipping what is up to date).
import { buildTheiaApp, compileTypeScript } from './lib/build.mjs';
import { ensureInstalled } from './lib/install.mjs';
import { BUILD_PACKAGES, ensureSystemPackages } from './lib/prerequisites.mjs';

const ok = await ensureSystemPackages(BUILD_PACKAGES)
    && await ensureInstalled()
    && await compileTypeScript()
    && await buildTheiaApp('browser-app')
    && await buildTheiaApp('electron-app');
process.exit(ok ? 0 : 1);
