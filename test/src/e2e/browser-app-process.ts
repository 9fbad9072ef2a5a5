import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const BROWSER_APP_MAIN = join(REPO_ROOT, 'browser-app', 'lib', 'backend', 'main.js');

export interface BrowserAppOptions {
    /** Workspace settings written to `<workspace>/.theia/settings.json` before start. */
    settings?: Record<string, unknown>;
    /** Files written below the workspace before start, e.g. `.qodeassist/agents/x.toml`. */
    files?: Record<string, string>;
    /** Files written below the user's home before start, e.g. `.theia/prompt-templates/agents/x/agent.md`. */
    userFiles?: Record<string, string>;
    /** Extra environment for the backend (e.g. OPENAI_API_KEY). */
    env?: Record<string, string>;
    /** How the user answers Theia's workspace-trust prompt (default: they trust their own folder). */
    trustWorkspace?: boolean;
    /** Let the keys of the workspace's provider files go to their URLs, as the user would with one click (default true). */
    allowProviderKeys?: boolean;
    startTimeoutMs?: number;
    /** Another Theia app's backend to run instead of the browser-app (the completion benchmark's baseline). */
    main?: string;
}

/**
 * The test user lets the keys of the workspace's provider files go to those providers' URLs,
 * as they would with one click (`~/.qodeassist/key_origins.json`): without it a project
 * provider's key is refused (docs/ARCHITECTURE.md §7).
 */
function keyOriginsFor(files: Record<string, string>): Record<string, string> {
    const origins: Record<string, string[]> = {};
    for (const [path, text] of Object.entries(files)) {
        const url = /^url\s*=\s*"([^"]+)"/m.exec(text)?.[1];
        const ref = /^api_key_ref\s*=\s*"([^"]+)"/m.exec(text)?.[1];
        if (path.startsWith('.qodeassist/providers/') && url && ref) {
            (origins[ref] ??= []).push(new URL(url).origin);
        }
    }
    return Object.keys(origins).length ? { '.qodeassist/key_origins.json': JSON.stringify(origins) } : {};
}

/** The real browser-app backend on 127.0.0.1 with a throw-away workspace and user home. */
export class BrowserAppProcess {
    private child: ChildProcess | undefined;
    private output = '';
    private options: BrowserAppOptions = {};
    readonly root = mkdtempSync(join(tmpdir(), 'qodeassist-e2e-'));
    readonly workspace = join(this.root, 'workspace');
    readonly home = join(this.root, 'home');
    url = '';

    async start(options: BrowserAppOptions): Promise<string> {
        this.options = options;
        mkdirSync(join(this.workspace, '.theia'), { recursive: true });
        writeFileSync(join(this.workspace, '.theia', 'settings.json'), JSON.stringify(options.settings ?? {}, undefined, 2));
        for (const [path, text] of Object.entries(options.files ?? {})) {
            mkdirSync(dirname(join(this.workspace, path)), { recursive: true });
            writeFileSync(join(this.workspace, path), text);
        }
        const home = this.home;
        // A home private to its user (as a fresh account's is): keys set in the UI may be kept there when no keyring answers.
        mkdirSync(home, { recursive: true, mode: 0o700 });
        const keyOrigins = options.allowProviderKeys === false ? {} : keyOriginsFor(options.files ?? {});
        for (const [path, text] of Object.entries({ ...keyOrigins, ...options.userFiles })) {
            mkdirSync(dirname(join(home, path)), { recursive: true });
            writeFileSync(join(home, path), text);
        }
        return this.launch(0);
    }

    /** Kills the backend as a crash would (SIGKILL: no shutdown, no last save); the workspace and home stay. */
    async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
        const child = this.child;
        this.child = undefined;
        if (child && child.exitCode === null && child.signalCode === null) {
            const exited = new Promise<void>(done => child.once('exit', () => done()));
            child.kill(signal);
            await exited;
        }
    }

    /** Starts the backend again on the same address, as after a crash or a restart under an open page. */
    async restart(): Promise<string> {
        const port = Number(new URL(this.url).port);
        this.output = '';
        return this.launch(port);
    }

    private async launch(port: number): Promise<string> {
        const options = this.options;
        const home = this.home;
        const child = spawn(process.execPath, [options.main ?? BROWSER_APP_MAIN, this.workspace, '--hostname=127.0.0.1', `--port=${port}`], {
            // No session bus: keys go to the workspace's throw-away home, never to the developer's keyring.
            env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: undefined, HOME: home, THEIA_CONFIG_DIR: join(home, '.theia'), ...options.env },
            stdio: ['ignore', 'pipe', 'pipe']
        });
        this.child = child;
        const timeoutMs = options.startTimeoutMs ?? 60_000;
        this.url = await new Promise<string>((resolvePromise, reject) => {
            const timer = setTimeout(() => reject(new Error(`browser-app did not start within ${timeoutMs} ms:\n${this.output}`)), timeoutMs);
            const onData = (chunk: Buffer) => {
                this.output += chunk.toString();
                const match = /listening on (http:\/\/[\d.]+:\d+)/i.exec(this.output);
                if (match) {
                    clearTimeout(timer);
                    resolvePromise(match[1].replace(/\/$/, ''));
                }
            };
            child.stdout?.on('data', onData);
            child.stderr?.on('data', onData);
            child.once('exit', code => {
                clearTimeout(timer);
                reject(new Error(`browser-app exited with ${code}:\n${this.output}`));
            });
        });
        return this.url;
    }

    get log(): string {
        return this.output;
    }

    async stop(): Promise<void> {
        const child = this.child;
        this.child = undefined;
        if (child && child.exitCode === null) {
            const exited = new Promise<void>(done => child.once('exit', () => done()));
            child.kill('SIGTERM');
            const forced = setTimeout(() => child.kill('SIGKILL'), 5_000);
            await exited;
            clearTimeout(forced);
        }
        rmSync(this.root, { recursive: true, force: true });
    }
}
