import { existsSync, FSWatcher, watch } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigRoots } from '../config/config-layers';
import { ConsentRegistry } from '../config/consent-registry';
import { Configuration, loadConfiguration } from './configuration-loader';

export interface ConfigurationServiceOptions {
    /** Editors write in bursts (temp file, rename, chmod); one reload per burst. */
    debounceMs?: number;
}

/**
 * The live configuration: loaded once, reloaded when a user or project file changes,
 * with a change event. Bundled files are read-only and not watched.
 */
export class ConfigurationService {
    private configuration: Configuration;
    private readonly listeners = new Set<(configuration: Configuration) => void>();
    private readonly watchers: FSWatcher[] = [];
    private timer: NodeJS.Timeout | undefined;
    private readonly debounceMs: number;
    private started = false;

    constructor(private rootsInUse: ConfigRoots, options: ConfigurationServiceOptions = {}) {
        this.debounceMs = options.debounceMs ?? 150;
        this.configuration = loadConfiguration(rootsInUse);
    }

    get roots(): ConfigRoots {
        return this.rootsInUse;
    }

    /**
     * Reads from other roots from now on (the project layer comes or goes with workspace
     * trust): the watchers follow, and listeners get the reloaded configuration at once.
     */
    setRoots(roots: ConfigRoots): Configuration {
        this.closeWatchers();
        this.rootsInUse = roots;
        if (this.started) {
            this.start();
        }
        return this.reload();
    }

    get current(): Configuration {
        return this.configuration;
    }

    onDidChange(listener: (configuration: Configuration) => void): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }

    /** Starts watching the user and project roots (or, until they exist, their parents). */
    start(): this {
        this.started = true;
        for (const root of [this.roots.user, this.roots.project]) {
            if (root) {
                this.watchRoot(root);
            }
        }
        return this;
    }

    reload(): Configuration {
        this.configuration = loadConfiguration(this.roots);
        for (const listener of this.listeners) {
            listener(this.configuration);
        }
        return this.configuration;
    }

    /**
     * Records the user's consent to a project's external agent, if `fingerprint` is that of its
     * entry as the files say now (read again: a consent to what was shown before an edit is
     * refused) and the project layer is loaded. The consent is kept in the user's folder, and the
     * agent may start from the reload on.
     */
    async grantAcpConsent(name: string, fingerprint: string): Promise<boolean> {
        const user = this.roots.user;
        const consent = this.reload().acpAwaitingConsent.get(name)?.consent;
        if (!user || !this.roots.project || !consent?.cwd || consent.fingerprint !== fingerprint) {
            return false;
        }
        await ConsentRegistry.forUserFolder(user).grant(consent.cwd, 'acp', name, fingerprint);
        this.reload();
        return true;
    }

    dispose(): void {
        clearTimeout(this.timer);
        this.closeWatchers();
        this.listeners.clear();
    }

    private closeWatchers(): void {
        for (const watcher of this.watchers.splice(0)) {
            watcher.close();
        }
    }

    private watchRoot(root: string): void {
        if (existsSync(root)) {
            const watcher = watch(root, { recursive: true, persistent: false }, (_event, name) => {
                if (!isKeptOutsideConfiguration(name)) {
                    this.scheduleReload();
                }
            });
            watcher.on('error', () => watcher.close());
            this.watchers.push(watcher);
            return;
        }
        const parent = dirname(root);
        if (!existsSync(parent)) {
            return;
        }
        // The folder does not exist yet: wait for it, then watch it.
        const waiting = watch(parent, { persistent: false }, () => {
            if (existsSync(root)) {
                waiting.close();
                this.watchers.splice(this.watchers.indexOf(waiting), 1);
                this.watchRoot(root);
                this.scheduleReload();
            }
        });
        waiting.on('error', () => waiting.close());
        this.watchers.push(waiting);
    }

    private scheduleReload(): void {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.reload(), this.debounceMs);
        this.timer.unref();
    }
}

/** Folders of `.qodeassist` that hold the user's data, not configuration: a chat saved or exported, or a fetched index cached, reloads nothing. */
const DATA_FOLDERS: ReadonlySet<string> = new Set(['chats', 'exports', 'cache']);

function isKeptOutsideConfiguration(name: string | Buffer | null): boolean {
    const first = name ? String(name).split(/[\\/]/)[0] : '';
    return DATA_FOLDERS.has(first);
}

/** The live configuration for a workspace folder (one service per folder, watched). */
export interface ConfigurationProvider {
    forWorkspace(workspacePath: string | undefined): ConfigurationService;
}

/** Whether the workspace's own configuration layer is loaded, i.e. the user trusts it: its skills, instructions and program-starting tools follow. */
export function isProjectLayerLoaded(configurations: ConfigurationProvider, workspacePath: string | undefined): boolean {
    return workspacePath !== undefined && configurations.forWorkspace(workspacePath).roots.project !== undefined;
}
