import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** The bundles npm test built: both applications carry the QodeAssist frontend and backend modules. */
describe('Theia application bundles', () => {
    const apps: Array<[string, string]> = [['browser-app', 'main.js'], ['electron-app', 'electron-main.js']];
    for (const [app, backendEntry] of apps) {
        describe(app, () => {
            it('has a frontend bundle with the QodeAssist chat view', () => {
                const bundle = readFileSync(join(ROOT, app, 'lib', 'frontend', 'bundle.js'), 'utf8');
                assert.ok(bundle.includes('qodeassist-chat'), 'chat widget id missing from the frontend bundle');
                assert.ok(bundle.includes('qodeassist.chat.agent'), 'preference schema missing from the frontend bundle');
            });

            it('has a backend bundle serving the QodeAssist chat RPC path', () => {
                assert.ok(existsSync(join(ROOT, app, 'lib', 'backend', backendEntry)), `${backendEntry} missing`);
                const backend = readFileSync(join(ROOT, app, 'lib', 'backend', 'main.js'), 'utf8');
                assert.ok(backend.includes('/services/qodeassist/chat'), 'chat RPC path missing from the backend bundle');
            });
        });
    }
});
