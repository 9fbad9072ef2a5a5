import { ChainedSecretsStore, EnvironmentSecretsStore, FileSecretsStore, KnownSecrets, PROCESS_SECRETS, RecordingSecretsStore, RecordingWritableSecretsStore, SecretsStore, WritableSecretsStore } from '@qodeassist/core';
import { join } from 'node:path';
import { Keychain, KeyringSecretsStore, loadKeytar } from './keyring-secrets';

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
