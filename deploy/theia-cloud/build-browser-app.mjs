// The browser app built by the project's own build steps — those of `npm run build` (scripts/build.mjs:
// system packages, npm ci, tsc -b with the highlight-worker bundle, theia build), less the Electron app,
// which the image does not hold. Run from the repository root; as root it installs the Debian packages.
import { buildTheiaApp, compileTypeScript } from '../../scripts/lib/build.mjs';
import { ensureInstalled } from '../../scripts/lib/install.mjs';
import { BUILD_PACKAGES, ensureSystemPackages } from '../../scripts/lib/prerequisites.mjs';

const ok = await ensureSystemPackages(BUILD_PACKAGES)
    && await ensureInstalled()
    && await compileTypeScript()
    && await buildTheiaApp('browser-app');
process.exit(ok ? 0 : 1);
