import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEPLOY_DIR, REPO_ROOT } from './theia-cloud-manifests';

/** A backend standing in for the bundle: answers `status` on the port it is given, as Theia's says where it listens. */
function backend(status: number): string {
    return `const http = require('node:http');
require('node:fs').writeFileSync(__dirname + '/backend.pid', String(process.pid));
const port = Number((process.argv.find(arg => arg.startsWith('--port=')) ?? '--port=0').slice(7));
const server = http.createServer((req, res) => res.writeHead(${status}).end('ok'));
server.listen(port, '127.0.0.1', () => console.log('Theia app listening on http://127.0.0.1:' + server.address().port + '.'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;
}

/**
 * deploy/theia-cloud/check-tree.mjs, the last step of build-tree.sh: an image is built only from a
 * tree whose backend finds the bundled agents, providers and core, and starts and answers.
 */
describe('build-tree\'s check of the runtime tree', function () {
    this.timeout(60_000);
    let tree: string;
    beforeEach(() => {
        tree = mkdtempSync(join(tmpdir(), 'qodeassist-check-tree-'));
        mkdirSync(join(tree, 'browser-app', 'lib', 'backend'), { recursive: true });
        mkdirSync(join(tree, 'node_modules', '@qodeassist'), { recursive: true });
    });
    afterEach(() => rmSync(tree, { recursive: true, force: true }));

    function lay(packages: readonly string[], main: string): void {
        const folders: Record<string, string> = { core: 'qodeassist-core', agents: 'agents', providers: 'providers' };
        for (const name of packages) {
            symlinkSync(join(REPO_ROOT, folders[name]), join(tree, 'node_modules', '@qodeassist', name));
        }
        writeFileSync(join(tree, 'browser-app', 'lib', 'backend', 'main.js'), main);
    }
    const check = () => spawnSync(process.execPath, [join(DEPLOY_DIR, 'check-tree.mjs'), tree], { encoding: 'utf8' });

    it('passes a tree with the three packages whose backend answers', () => {
        lay(['core', 'agents', 'providers'], backend(200));
        const result = check();
        assert.equal(result.status, 0, result.stderr);
        assert.match(result.stdout, /bundled agents load, the backend starts and answers/);
    });

    for (const missing of ['agents', 'providers', 'core']) {
        it(`fails, naming it, when @qodeassist/${missing} is not in the tree (every chat would fail)`, () => {
            lay(['core', 'agents', 'providers'].filter(name => name !== missing), backend(200));
            const result = check();
            assert.equal(result.status, 1);
            assert.match(result.stderr, new RegExp(`@qodeassist/${missing}/(package\\.json|bin)[^ ]* is not found`));
        });
    }

    it('fails when the backend exits instead of listening', () => {
        lay(['core', 'agents', 'providers'], 'console.error("Error: Cannot find module \'x\'"); process.exit(3);\n');
        const result = check();
        assert.equal(result.status, 1);
        assert.match(result.stderr, /exited with 3[\s\S]*Cannot find module 'x'/);
    });

    it('fails when the backend answers with an error, and leaves no backend running', () => {
        lay(['core', 'agents', 'providers'], backend(500));
        const result = check();
        assert.equal(result.status, 1);
        assert.match(result.stderr, /answered 500/);
        const pid = Number(readFileSync(join(tree, 'browser-app', 'lib', 'backend', 'backend.pid'), 'utf8'));
        assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `the backend ${pid} is gone`);
    });
});
