/** What the QodeAssist backend services share, bound once in the backend module. */
import { ChainedSecretsStore, ConfigurationService, defaultConfigRoots, EnvironmentSecretsStore, FileSecretsStore, SecretsStore, WritableSecretsStore } from '@qodeassist/core';
import { join } from 'node:path';
import { Keychain, KeyringSecretsStore, loadKeytar } from './keyring-secrets';

export const QodeAssistSecretsStore = Symbol('QodeAssistSecretsStore');
export const QodeAssistConfiguration = Symbol('QodeAssistConfiguration');
/** The user's home, where `~/.qodeassist/chats` lives when chats are kept per user (tests point it elsewhere). */
export const QodeAssistUserHome = Symbol('QodeAssistUserHome');

/** Where keys set from the IDE and the MCP server token are stored. */
export const QodeAssistWritableSecrets = Symbol('QodeAssistWritableSecrets');

/**
 * The OS keyring (through keytar) when one answers; else `~/.qodeassist/secrets.json`, readable by
 * its owner only: machines without a keyring (containers, CI, a server without a desktop session).
 */
export function defaultWritableSecrets(userHome: string, keychain: Keychain | undefined = loadKeytar()): WritableSecretsStore {
    return new KeyringSecretsStore(keychain, new FileSecretsStore(join(userHome, '.qodeassist', 'secrets.json')));
}

/** Keys are read from the environment first (`<REF>_API_KEY`), then from what the user stored in the IDE. */
export function defaultSecretsStore(writable: SecretsStore): SecretsStore {
    return new ChainedSecretsStore([new EnvironmentSecretsStore(), writable]);
}

/** Resolves the live configuration for a workspace folder (one service per folder, watched). */
export interface ConfigurationProvider {
    forWorkspace(workspacePath: string | undefined): ConfigurationService;
}

/** One ConfigurationService per workspace folder, created on first use and kept watching. */
export class WorkspaceConfigurations implements ConfigurationProvider {
    private readonly services = new Map<string, ConfigurationService>();

    forWorkspace(workspacePath: string | undefined): ConfigurationService {
        const key = workspacePath ?? '';
        let service = this.services.get(key);
        if (!service) {
            service = new ConfigurationService(defaultConfigRoots(workspacePath)).start();
            this.services.set(key, service);
        }
        return service;
    }

    dispose(): void {
        for (const service of this.services.values()) {
            service.dispose();
        }
        this.services.clear();
    }
}
