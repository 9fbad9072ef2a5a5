/** What the QodeAssist backend services share, bound once in the backend module. */
import {
    ChainedSecretsStore, ConfigRoots, ConfigurationProvider, ConfigurationService, isProjectLayerLoaded, defaultConfigRoots, EnvironmentSecretsStore, FileSecretsStore, KnownSecrets, PROCESS_SECRETS, RecordingSecretsStore,
    RecordingWritableSecretsStore, SecretsStore, trustedProject, WritableSecretsStore
} from '@qodeassist/core';
import { join } from 'node:path';
import { Keychain, KeyringSecretsStore, loadKeytar } from './keyring-secrets';
import { WorkspaceTrustRegistry } from './workspace-trust';

export const QodeAssistSecretsStore = Symbol('QodeAssistSecretsStore');
export const QodeAssistConfiguration = Symbol('QodeAssistConfiguration');
/** The user's home, where `~/.qodeassist/chats` lives when chats are kept per user (tests point it elsewhere). */
export const QodeAssistUserHome = Symbol('QodeAssistUserHome');

/** Where keys set from the IDE and the MCP server token are stored. */
export const QodeAssistWritableSecrets = Symbol('QodeAssistWritableSecrets');

/** The chats open in this backend, one owner per chat file, shared by every window's chat service. */
export const QodeAssistChatOwners = Symbol('QodeAssistChatOwners');

/** Every key the backend resolved or stored: the loggers and the chat saver scrub these values. */
export const QodeAssistKnownSecrets = Symbol('QodeAssistKnownSecrets');

/**
 * The OS keyring (through keytar) when one answers; else `~/.qodeassist/secrets.json`, readable by
 * its owner only: machines without a keyring (containers, CI, a server without a desktop session).
 */
export function defaultWritableSecrets(userHome: string, keychain: Keychain | undefined = loadKeytar(), known: KnownSecrets = PROCESS_SECRETS): WritableSecretsStore {
    // Recording: a key read or stored here (an API key, the MCP server token) is redacted from then on.
    return new RecordingWritableSecretsStore(new KeyringSecretsStore(keychain, new FileSecretsStore(join(userHome, '.qodeassist', 'secrets.json'))), known);
}

/** Keys are read from the environment first (`<REF>_API_KEY`), then from what the user stored in the IDE; each one read is recorded for redaction. */
export function defaultSecretsStore(writable: SecretsStore, known: KnownSecrets = PROCESS_SECRETS): SecretsStore {
    return new RecordingSecretsStore(new ChainedSecretsStore([new EnvironmentSecretsStore(), writable]), known);
}

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
