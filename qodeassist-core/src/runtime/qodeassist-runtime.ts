import { dirname } from 'node:path';
import { configuredAgentResolver, sessionAgentFor } from '../agents/agent-request';
import { ResolvedAgent } from '../agents/configuration-loader';
import { ConfigurationService } from '../agents/configuration-service';
import { ProviderLauncher, withProviderLaunch } from './provider-launcher';
import { environmentPolicy } from '../config/managed-policy';
import { SpendLedger } from './spend-ledger';
import { keyFileOf, withFreshKey } from './key-refresh';
import { keyFileStamp } from '../config/key-files';
import { qodeassistHome } from '../config/config-layers';
import { spendLedgerPath } from '../config/state-dir';
import { SecretsStore } from '../config/secrets-store';
import { ContentLoader } from '../context/content-loader';
import { ContextAssembler } from '../context/context-assembler';
import { EnvFacts, environmentFacts, EnvironmentInput, gitBranch } from '../context/env-block';
import { TokenEstimator } from '../context/token-estimator';
import { Logger } from '../ports/logger';
import { SessionAgent, SessionServices } from '../session/session';
import { SessionManager } from '../session/session-manager';
import { SkillsEngine } from '../skills/skills-engine';
import { AnyTool } from '../tools/tool';
import { ToolKitExecutor } from '../tools/tool-executor';
import { HostModels } from '../wire/host-models';
import { COMPLETION_LIMIT_DEFAULTS } from '../wire/request-limits';
import { createToolKit, SkillSettings, skillRootsFor, ToolKitRequest } from './request-tools';

/** What a host composes its runtime from: where keys come from, what it logs to, what it adds. */
export interface RuntimeOptions {
    secrets: SecretsStore;
    /** Fires when a stored key was set or cleared: resolved agents hold their key, so they are resolved again. */
    onSecretsChange?(listener: () => void): () => void;
    /** The IDE's own language models, for agents with client_api "theia"; absent outside an IDE. */
    hostModels?: HostModels;
    /** Manifests, request bodies (redacted) and tool activity of this host. */
    logger?: Logger;
    /** More session services (e.g. the user's limit overrides), the same for every session of this host. */
    sessionServices?: Omit<Partial<SessionServices>, 'assembler' | 'estimator' | 'logger' | 'hostModels' | 'tools'>;
    /** More tools for a workspace (and the chat or refactor `ownerId` they are for), asked for at every request (the MCP hub's). */
    extraTools?(workspace: string, ownerId: string): () => readonly AnyTool[];
    /** How an agent becomes ready to send; the bench points it at another URL. Default: its own URL and key. */
    resolveAgent?(agent: ResolvedAgent, secrets: SecretsStore): Promise<SessionAgent>;
    /** The user's home, for the user's skill folders; default the process's. */
    userHome?: string;
    /** The spend ledger (spend.json) the daily limit counts in; default the one in userHome's (else the state dir's) `.qodeassist`. */
    spendLedger?: string;
    /**
     * Starts the servers of providers with `[launch]`, shared by the host's runtimes and stopped by
     * the host when it ends (the IDE backend's, at shutdown). Without it the runtime has its own and stops it on dispose.
     */
    launcher?: ProviderLauncher;
}

export type SessionPurpose = 'conversation' | 'completion';

/** How long a workspace's git branch is reused: completion and the token counter ask at nearly every pause in typing. */
const BRANCH_TTL_MS = 5_000;

/**
 * One host's composition of the core: the session pools (per configuration and purpose,
 * emptied when the configuration or a stored key changes), the token estimator and context
 * assembler they share, the tool kit, the skills engines, the secrets and the logger. The IDE
 * backend makes one per window connection, the bench one per run, the MCP server one; the
 * features (chat, refactor, completion) and the Theia models are given it, none builds its own.
 */
export class QodeAssistRuntime {
    readonly estimator = new TokenEstimator();
    readonly assembler = new ContextAssembler(this.estimator, new ContentLoader());
    private readonly pools = new Map<ConfigurationService, Map<SessionPurpose, SessionManager>>();
    private readonly skills = new Map<string, SkillsEngine>();
    private readonly branches = new Map<string, { at: number; branch: Promise<string | undefined> }>();
    private readonly stopWatching: Array<() => void> = [];
    private disposed = false;
    /** The providers' servers this runtime may start; its own (stopped on dispose) unless the host shares one. */
    readonly launcher: ProviderLauncher;
    private readonly ownsLauncher: boolean;

    constructor(readonly options: RuntimeOptions) {
        this.ownsLauncher = options.launcher === undefined;
        this.launcher = options.launcher ?? new ProviderLauncher();
        const stop = options.onSecretsChange?.(() => this.forgetAgents());
        if (stop) {
            this.stopWatching.push(stop);
        }
    }

    get secrets(): SecretsStore {
        return this.options.secrets;
    }

    get logger(): Logger | undefined {
        return this.options.logger;
    }

    /**
     * The session pool of a configuration. Conversations (chat, refactor, Theia's models, the
     * bench) assemble every tool round again; completion keeps one idle session per agent, and
     * its answers have far tighter default limits (30 s, 512 KiB) than a conversation's.
     */
    sessions(configuration: ConfigurationService, purpose: SessionPurpose = 'conversation'): SessionManager {
        let byPurpose = this.pools.get(configuration);
        if (!byPurpose) {
            byPurpose = new Map();
            this.pools.set(configuration, byPurpose);
            // A request racing the connection's close may still ask; after dispose nothing would unsubscribe it.
            if (!this.disposed) {
                this.stopWatching.push(configuration.onDidChange(() => this.forgetAgents(configuration)));
            }
        }
        let manager = byPurpose.get(purpose);
        if (!manager) {
            const prepare = this.options.resolveAgent ?? sessionAgentFor;
            // The workspace (known once trusted) is where a launched server's program is never taken from.
            const workspaceRoots = configuration.roots.project ? [dirname(configuration.roots.project)] : [];
            const resolve = async (agent: ResolvedAgent, secrets: SecretsStore) => {
                // A key from a file is checked before each request: a rotated Secret applies to the next one.
                const keyFile = keyFileOf(agent);
                const stamp = keyFile === undefined ? undefined : keyFileStamp(keyFile);
                const ready = withProviderLaunch(await prepare(agent, secrets), agent, this.launcher, { logger: this.options.logger, workspaceRoots });
                return withFreshKey(ready, keyFile, stamp, () => prepare(agent, secrets));
            };
            manager = new SessionManager(configuredAgentResolver(() => configuration.current, this.secrets, resolve), {
                ...this.options.sessionServices,
                assembler: this.assembler, estimator: this.estimator, hostModels: this.options.hostModels, logger: this.options.logger,
                reassembleRounds: purpose === 'conversation',
                ...this.spendFor(configuration),
                // A suggestion that takes half a minute or runs to chat lengths is not one: completion ends far sooner.
                limitDefaults: { ...purpose === 'completion' ? COMPLETION_LIMIT_DEFAULTS : {}, ...this.options.sessionServices?.limitDefaults }
            }, purpose === 'completion' ? 1 : 2);
            byPurpose.set(purpose, manager);
        }
        return manager;
    }

    /** The user's spend ledger against the administrator's daily limit: the one file every process of the user shares. */
    private spendFor(configuration: ConfigurationService): Pick<SessionServices, 'spend'> {
        const ledger = SpendLedger.at(this.options.spendLedger ?? spendLedgerPath(this.options.userHome ?? qodeassistHome()));
        return { spend: { reserve: estimate => ledger.reserve(configuration.current.policy, estimate) } };
    }

    /** The tools of one chat or refactor: the built-in ones confined to its workspace, plus the host's extra tools. */
    toolKit(request: Omit<ToolKitRequest, 'extraTools'>): ToolKitExecutor {
        // The administrator's ceiling holds for every tool kit: the chat's, the refactor's, Theia AI's, the MCP server's.
        return createToolKit({ ...request, policy: request.policy ?? environmentPolicy(), extraTools: this.options.extraTools?.(request.workspace, request.ownerId) });
    }

    /** The environment block's facts for a request; the workspace's git branch is read again at most every few seconds. */
    environment(input: EnvironmentInput): Promise<EnvFacts> {
        return environmentFacts(input, root => {
            const known = this.branches.get(root);
            if (known && Date.now() - known.at < BRANCH_TTL_MS) {
                return known.branch;
            }
            const branch = gitBranch(root);
            this.branches.set(root, { at: Date.now(), branch });
            return branch;
        });
    }

    /** The skills of a workspace (and the user's, and the extra folders), watched and shared; undefined when skills are off. */
    skillsFor(workspace: string | undefined, settings: SkillSettings | undefined, projectTrusted: boolean): SkillsEngine | undefined {
        const roots = skillRootsFor(workspace, settings, projectTrusted, this.options.userHome);
        if (!roots || this.disposed) {
            return undefined;
        }
        const key = JSON.stringify([workspace ?? '', roots]);
        let engine = this.skills.get(key);
        if (!engine) {
            engine = new SkillsEngine(roots, { workspace }).start();
            this.skills.set(key, engine);
        }
        return engine;
    }

    dispose(): void {
        if (this.disposed) {
            return;
        }
        this.disposed = true;
        for (const stop of this.stopWatching.splice(0)) {
            stop();
        }
        this.pools.clear();
        for (const engine of this.skills.values()) {
            engine.dispose();
        }
        this.skills.clear();
        if (this.ownsLauncher) {
            void this.launcher.dispose();
        }
    }

    /** Resolved agents and pooled sessions are dropped (of one configuration, or all): the next send resolves again. */
    private forgetAgents(configuration?: ConfigurationService): void {
        const pools = configuration ? [this.pools.get(configuration)] : [...this.pools.values()];
        for (const byPurpose of pools) {
            for (const manager of byPurpose?.values() ?? []) {
                manager.clear();
            }
        }
    }
}
