import { ConfigurationService, configuredAgentResolver, ContentLoader, ContextAssembler, HostModels, Logger, SecretsStore, SessionManager, TokenEstimator } from '@qodeassist/core';

/**
 * One session pool per configuration, emptied whenever that configuration changes. Its
 * sessions assemble every tool round again (the working set, the budget, the trace checks).
 */
export class SessionPools {
    readonly estimator = new TokenEstimator();
    private readonly assembler = new ContextAssembler(this.estimator, new ContentLoader());
    private readonly managers = new Map<ConfigurationService, SessionManager>();
    private readonly stopWatching: Array<() => void> = [];

    /** `hostModels`: Theia AI's language models, for agents with client_api "theia"; `logger`: the window's QodeAssist log. */
    constructor(private readonly secrets: SecretsStore, private readonly hostModels?: HostModels, private readonly logger?: Logger) { }

    for(configurationService: ConfigurationService): SessionManager {
        let manager = this.managers.get(configurationService);
        if (!manager) {
            const created = new SessionManager(configuredAgentResolver(() => configurationService.current, this.secrets),
                { assembler: this.assembler, estimator: this.estimator, reassembleRounds: true, hostModels: this.hostModels, logger: this.logger });
            this.stopWatching.push(configurationService.onDidChange(() => created.clear()));
            this.managers.set(configurationService, created);
            manager = created;
        }
        return manager;
    }

    dispose(): void {
        for (const stop of this.stopWatching.splice(0)) {
            stop();
        }
        this.managers.clear();
    }
}
