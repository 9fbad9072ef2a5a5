import { ConfigRoots, ConfigurationProvider, ConfigurationService, defaultConfigRoots, isProjectLayerLoaded, trustedProject } from '@qodeassist/core';
import { WorkspaceTrustRegistry } from './workspace-trust';

export { ConfigurationProvider, isProjectLayerLoaded };

/**
 * One ConfigurationService per workspace folder, created on first use and kept watching. The
 * folder's own `.qodeassist` layer is read only while the user trusts the workspace; granting
 * or withdrawing trust reloads it live.
 */
export class WorkspaceConfigurations implements ConfigurationProvider {
    private readonly services = new Map<string, ConfigurationService>();
    private readonly stopWatchingTrust: () => void;

    constructor(
        private readonly trust: WorkspaceTrustRegistry = new WorkspaceTrustRegistry(),
        /** The roots for a workspace whose own layer is read (a trusted one) or none; the open folder either way (a state dir inside it is refused). */
        private readonly rootsFor: (project: string | undefined, open: string | undefined) => ConfigRoots = (project, open) => defaultConfigRoots(project, undefined, open)
    ) {
        this.stopWatchingTrust = trust.onDidChange((workspacePath, trusted) => {
            this.services.get(workspacePath)?.setRoots(this.rootsFor(trustedProject(workspacePath, trusted), workspacePath));
        });
    }

    forWorkspace(workspacePath: string | undefined): ConfigurationService {
        const key = workspacePath ?? '';
        let service = this.services.get(key);
        if (!service) {
            service = new ConfigurationService(this.rootsFor(trustedProject(workspacePath, this.trust.isTrusted(workspacePath)), workspacePath)).start();
            this.services.set(key, service);
        }
        return service;
    }

    dispose(): void {
        this.stopWatchingTrust();
        for (const service of this.services.values()) {
            service.dispose();
        }
        this.services.clear();
    }
}
