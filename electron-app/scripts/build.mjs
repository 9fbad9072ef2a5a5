// Builds the Electron application bundle. `theia build` first downloads the Electron
// binary to patch its ffmpeg; that download is impossible offline and needless when
// the app is only bundled and type-checked (ELECTRON_SKIP_BINARY_DOWNLOAD=1), so this
// runs the same build with that preparation skipped when the binary is absent.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { ApplicationPackageManager } = require('@theia/application-manager');

const projectPath = join(dirname(fileURLToPath(import.meta.url)), '..');
const mode = process.argv.includes('--mode=production') ? 'production' : 'development';
const manager = new ApplicationPackageManager({ projectPath, appTarget: 'electron' });

const electronDist = join(dirname(require.resolve('electron/package.json')), 'dist', 'version');
if (!existsSync(electronDist) && process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
    console.log('electron-app: no Electron binary (ELECTRON_SKIP_BINARY_DOWNLOAD is set); bundling without the ffmpeg preparation step.');
    manager.prepare = async () => undefined;
}
await manager.build(['--mode', mode], { mode });
