import { WritableSecretsStore } from '@qodeassist/core';

/** The part of keytar QodeAssist uses: the OS keyring (Secret Service on Linux, Keychain on macOS, Credential Vault on Windows). */
export interface Keychain {
    getPassword(service: string, account: string): Promise<string | null>;
    setPassword(service: string, account: string, password: string): Promise<void>;
    deletePassword(service: string, account: string): Promise<boolean>;
}

/** keytar when its native module loads here; undefined where it cannot (then keys stay in the file). */
export function loadKeytar(): Keychain | undefined {
    try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        return require('keytar') as Keychain;
    } catch {
        return undefined;
    }
}

/** The service name keys are filed under in the keyring (account = the key's ref). */
export const KEYRING_SERVICE = 'QodeAssist';

/**
 * Keys in the OS keyring when there is one that answers, else in the fallback (the 0600 file):
 * a container or a server without a Secret Service keeps working. Reads look in the keyring
 * first and then in the file, so keys stored before a keyring was available still work; a key
 * written to the keyring is removed from the file, so it is never kept in two places.
 */
export class KeyringSecretsStore implements WritableSecretsStore {
    private probe: Promise<boolean> | undefined;

    constructor(
        private readonly keychain: Keychain | undefined,
        private readonly fallback: WritableSecretsStore,
        private readonly options: { service?: string; probeTimeoutMs?: number } = {}
    ) { }

    /** Where a key set now goes. */
    async location(): Promise<'keyring' | 'file'> {
        return await this.keyringWorks() ? 'keyring' : 'file';
    }

    async get(ref: string): Promise<string | undefined> {
        if (await this.keyringWorks()) {
            try {
                const value = await this.keychain!.getPassword(this.service, ref);
                if (value?.trim()) {
                    return value.trim();
                }
            } catch {
                // A keyring that stopped answering (locked, daemon gone): the file still may hold it.
            }
        }
        return this.fallback.get(ref);
    }

    async set(ref: string, value: string): Promise<void> {
        if (await this.keyringWorks()) {
            try {
                await this.keychain!.setPassword(this.service, ref, value);
                await this.fallback.delete(ref);
                return;
            } catch {
                // Not writable after all: the file takes it.
            }
        }
        await this.fallback.set(ref, value);
    }

    async delete(ref: string): Promise<void> {
        if (await this.keyringWorks()) {
            try {
                await this.keychain!.deletePassword(this.service, ref);
            } catch {
                // Nothing to remove there.
            }
        }
        await this.fallback.delete(ref);
    }

    private get service(): string {
        return this.options.service ?? KEYRING_SERVICE;
    }

    /** Asked once: does the keyring answer at all (a Secret Service on the session bus, unlocked)? */
    private keyringWorks(): Promise<boolean> {
        if (!this.keychain) {
            return Promise.resolve(false);
        }
        this.probe ??= new Promise<boolean>(resolve => {
            const timer = setTimeout(() => resolve(false), this.options.probeTimeoutMs ?? 3_000);
            this.keychain!.getPassword(this.service, '__qodeassist_probe__').then(
                () => { clearTimeout(timer); resolve(true); },
                () => { clearTimeout(timer); resolve(false); }
            );
        });
        return this.probe;
    }
}
