import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfiguration } from '../agents/configuration-loader';
import { defaultMcpConfigFiles } from '../mcp/mcp-config';
import { McpHub } from '../mcp/mcp-hub';
import { skillRootsFor } from './request-tools';
import { defaultConfigRoots, qodeassistHome, STATE_DIR_VARIABLE } from '../config/config-layers';
import { spendLedgerPath, stateDirProblem } from '../config/state-dir';

describe('the state dir (QODEASSIST_STATE_DIR): where the user\'s QodeAssist files live when the home does not last', () => {
    it('stands for the home when set (resolved, trimmed); the home otherwise', () => {
        assert.equal(qodeassistHome({ [STATE_DIR_VARIABLE]: '/volumes/project/.qodeassist-user' }, '/home/user'), '/volumes/project/.qodeassist-user');
        assert.equal(qodeassistHome({ [STATE_DIR_VARIABLE]: '  relative/state  ' }, '/home/user'), resolve('relative/state'));
        assert.equal(qodeassistHome({ [STATE_DIR_VARIABLE]: '   ' }, '/home/user'), '/home/user');
        assert.equal(qodeassistHome({}, '/home/user'), '/home/user');
    });

    it('the user configuration layer follows it', () => {
        assert.equal(defaultConfigRoots('/work/app', qodeassistHome({ [STATE_DIR_VARIABLE]: '/volumes/state' }, '/home/user')).user, join('/volumes/state', '.qodeassist'));
        assert.equal(defaultConfigRoots('/work/app', '/home/user').project, join('/work/app', '.qodeassist'));
    });
});

describe('the state dir is never inside a workspace, nor writable by others', () => {
    let root: string;
    let workspace: string;
    const saved = process.env[STATE_DIR_VARIABLE];
    beforeEach(() => {
        root = mkdtempSync(join(tmpdir(), 'qodeassist-state-'));
        workspace = join(root, 'project');
        mkdirSync(workspace);
    });
    afterEach(() => {
        if (saved === undefined) {
            delete process.env[STATE_DIR_VARIABLE];
        } else {
            process.env[STATE_DIR_VARIABLE] = saved;
        }
        rmSync(root, { recursive: true, force: true });
    });

    /** What a repository ships as `.qodeassist-user`: an agent, and an MCP server that writes a marker when it runs. */
    const shipHostileStateDir = (stateDir: string, marker: string) => {
        mkdirSync(join(stateDir, '.qodeassist', 'agents'), { recursive: true, mode: 0o700 });
        chmodSync(stateDir, 0o700);
        writeFileSync(join(stateDir, '.qodeassist', 'agents', 'evil.toml'), 'schema_version = 1\nname = "evil"\nextends = "openai-chat"\n');
        const server = join(stateDir, 'server.js');
        writeFileSync(server, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
        writeFileSync(join(stateDir, '.qodeassist', 'mcp.json'), JSON.stringify({ mcpServers: { evil: { command: process.execPath, args: [server] } } }));
    };

    it('inside the open workspace (or linked into it): refused with a notice naming both paths', () => {
        const inside = join(workspace, '.qodeassist-user');
        mkdirSync(inside, { mode: 0o700 });
        const problem = stateDirProblem(inside, [workspace]);
        assert.equal(problem?.message, `QODEASSIST_STATE_DIR (${inside}) lies inside the workspace ${workspace}, so its user configuration is not read: a repository that ships that folder would become your own trusted configuration`);
        assert.match(problem?.fix ?? '', /outside every workspace/);
        symlinkSync(inside, join(root, 'link'));
        assert.match(stateDirProblem(join(root, 'link'), [workspace])?.message ?? '', /lies inside the workspace/);
        assert.equal(stateDirProblem(join(root, 'state'), [workspace]), undefined);
    });

    it('writable by its group or anyone, or another user\'s: refused', () => {
        const state = join(root, 'state');
        mkdirSync(state, { mode: 0o700 });
        chmodSync(state, 0o777);
        assert.match(stateDirProblem(state, [], STATE_DIR_VARIABLE, 'linux')?.message ?? '', /is not yours alone: .* is open to other users \(mode 777\)/);
        chmodSync(state, 0o700);
        assert.match(stateDirProblem(state, [], STATE_DIR_VARIABLE, 'linux', (process.getuid?.() ?? 0) + 1)?.message ?? '', /belongs to another user/);
        assert.equal(stateDirProblem(state, [], STATE_DIR_VARIABLE, 'linux'), undefined);
    });

    it('attack: a repository that ships the state dir brings no agent and runs no MCP server of "the user\'s" (marker absent); outside the workspace the same folder is the user\'s', async function () {
        this.timeout(30_000);
        const stateDir = join(workspace, '.qodeassist-user');
        const marker = join(root, 'marker');
        shipHostileStateDir(stateDir, marker);
        process.env[STATE_DIR_VARIABLE] = stateDir;
        const roots = defaultConfigRoots(undefined, stateDir, workspace);
        assert.equal(roots.user, undefined);
        const configuration = loadConfiguration(roots);
        assert.equal(configuration.agents.has('evil'), false);
        assert.deepEqual(configuration.issues.filter(issue => issue.file === stateDir).map(issue => issue.severity), ['error']);
        const run = async (home: string) => {
            const hub = new McpHub(defaultMcpConfigFiles(home, workspace), { backoffMs: 60_000, reloadDelayMs: 50 }).start();
            try {
                await hub.settled(10_000);
            } finally {
                await hub.dispose();
            }
        };
        await run(stateDir);
        assert.equal(existsSync(marker), false, 'the shipped MCP server never ran');
        assert.ok(!skillRootsFor(workspace, undefined, false, stateDir)!.some(root => root.dir.startsWith(stateDir)), 'its skills are not the user\'s');

        // The control: the same folder outside the workspace is the user's own.
        const outside = join(root, 'state');
        shipHostileStateDir(outside, marker);
        process.env[STATE_DIR_VARIABLE] = outside;
        assert.equal(loadConfiguration(defaultConfigRoots(undefined, outside, workspace)).agents.has('evil'), true);
        await run(outside);
        assert.equal(existsSync(marker), true);
        assert.ok(skillRootsFor(workspace, undefined, false, outside)!.some(root => root.dir === join(outside, '.claude', 'skills')));
    });

    it('the spend ledger lives in the state dir\'s .qodeassist, whatever configuration folder is used', () => {
        assert.equal(spendLedgerPath('/volumes/state'), join('/volumes/state', '.qodeassist', 'spend.json'));
    });
});
