import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve, isAbsolute, sep } from 'node:path';
import { ConfigFile } from './config-file';
import { KEY_ORIGINS_FILE } from './key-origins';
import { gatewaySettings, GatewaySettings } from './gateway';
import { managedDir } from './managed-policy';
import { STATE_DIR_VARIABLE, stateDirRefusal } from './state-dir';

/** Where configuration comes from; later layers shadow earlier ones by name (project > user > bundled). */
export interface ConfigRoots {
    /** The @qodeassist/agents package folder: profiles, rosters.toml, roles/, partials/. */
    bundledAgents: string;
    /** The @qodeassist/providers package folder. */
    bundledProviders: string;
    /** `~/.qodeassist` */
    user?: string;
    /** Why the state dir's user layer is not read for this workspace (inside it, or writable by others); then `user` is absent. */
    userRefused?: { path: string; message: string; fix: string };
    /** `<workspace>/.qodeassist` */
    project?: string;
    /** The administrator's folder (QODEASSIST_MANAGED_DIR): a layer above all others, and its policy.toml. */
    managed?: string;
    /** Gateway mode (QODEASSIST_GATEWAY_URL): every provider call through one gateway. */
    gateway?: GatewaySettings;
}

export type LayerName = 'bundled' | 'user' | 'project' | 'managed';

export interface ConfigLayer {
    name: LayerName;
    providersDir: string;
    agentsDir: string;
    rolesDir: string;
    partialsDir: string;
    /** External coding agents (`acp/*.toml`). */
    acpDir: string;
    /** agent_models.json, for user and project layers. */
    modelOverridesFile?: string;
    /** key_origins.json, the user layer's only: origins the user lets a key go to. */
    keyOriginsFile?: string;
    /** Root for labels of bundled files. */
    bundledRoot?: string;
    /** The project layer's workspace folder (the one its `.qodeassist` is in): where what it starts runs. */
    workspace?: string;
}

export { STATE_DIR_VARIABLE };

/**
 * The folder whose `.qodeassist` holds the user's QodeAssist files — configuration, chats kept per
 * user, MCP consents, the key file where no keyring answers — and whose `.claude/skills` the user's
 * skills: `QODEASSIST_STATE_DIR` when set (a persistent volume, where a pod's home is thrown away
 * at every restart), else the user's home.
 */
export function qodeassistHome(env: Readonly<Record<string, string | undefined>> = process.env, home = homedir()): string {
    const stateDir = env[STATE_DIR_VARIABLE]?.trim();
    return stateDir ? resolve(stateDir) : home;
}

/**
 * The default roots: the bundled packages as installed, `~/.qodeassist` (or the state dir's), and
 * the workspace's `.qodeassist`. `openWorkspace` is the folder open in the window, trusted or not:
 * a state dir inside it (or writable by others) gives no user layer (see stateDirProblem).
 */
export function defaultConfigRoots(workspace?: string, home = qodeassistHome(), openWorkspace = workspace, env: Readonly<Record<string, string | undefined>> = process.env): ConfigRoots {
    const refused = stateDirRefusal(home, openWorkspace, env);
    return {
        bundledAgents: dirname(require.resolve('@qodeassist/agents/package.json')),
        bundledProviders: dirname(require.resolve('@qodeassist/providers/package.json')),
        ...(refused ? { userRefused: { path: home, ...refused } } : { user: join(home, '.qodeassist') }),
        project: workspace ? join(workspace, '.qodeassist') : undefined,
        ...(managedDir() ? { managed: managedDir() } : {}),
        ...(gatewaySettings() ? { gateway: gatewaySettings() } : {})
    };
}

export function configLayers(roots: ConfigRoots): ConfigLayer[] {
    const layers: ConfigLayer[] = [{
        name: 'bundled', providersDir: roots.bundledProviders, agentsDir: roots.bundledAgents,
        rolesDir: join(roots.bundledAgents, 'roles'), partialsDir: join(roots.bundledAgents, 'partials'), acpDir: join(roots.bundledAgents, 'acp'),
        bundledRoot: dirname(roots.bundledAgents)
    }];
    // The administrator's layer comes last: what it defines, no user or project file shadows.
    for (const [name, root] of [['user', roots.user], ['project', roots.project], ['managed', roots.managed]] as const) {
        if (root) {
            layers.push({
                name, providersDir: join(root, 'providers'), agentsDir: join(root, 'agents'), rolesDir: join(root, 'roles'),
                partialsDir: join(root, 'partials'), acpDir: join(root, 'acp'), modelOverridesFile: join(root, 'agent_models.json'),
                ...(name === 'user' ? { keyOriginsFile: join(root, KEY_ORIGINS_FILE) } : {}), ...(name === 'project' ? { workspace: dirname(root) } : {})
            });
        }
    }
    return layers;
}

/** The files of one kind in a folder, sorted by name, read whole. */
export function readConfigFiles(layer: ConfigLayer, dir: string, extension: string, exclude: readonly string[] = []): ConfigFile[] {
    if (!existsSync(dir) || (dir === layer.rolesDir && rolesLinkedOut(layer))) {
        return [];
    }
    return readdirSync(dir, { withFileTypes: true })
        .filter(entry => entry.isFile() && entry.name.endsWith(extension) && !exclude.includes(entry.name))
        .map(entry => entry.name)
        .sort()
        .map(name => readConfigFile(layer, join(dir, name)));
}

/**
 * Where a user, project or managed layer's roles/ really is when a link takes it out of the layer's own
 * folder (to /proc, a home folder, …): its files are not read (their text would go into system prompts),
 * and the configuration lists a notice. Undefined when it is inside, missing, or bundled.
 */
export function rolesLinkedOut(layer: ConfigLayer): string | undefined {
    if (layer.bundledRoot || !existsSync(layer.rolesDir)) {
        return undefined;
    }
    const real = realpathSync(layer.rolesDir);
    const inside = relative(realpathSync(dirname(layer.rolesDir)), real);
    return inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside) ? real : undefined;
}

export function readConfigFile(layer: ConfigLayer, path: string): ConfigFile {
    const label = layer.bundledRoot ? `bundled:${relative(layer.bundledRoot, path).split('\\').join('/')}` : path;
    return { label, path, text: readFileSync(path, 'utf8') };
}
