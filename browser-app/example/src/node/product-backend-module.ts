import { ChainedSecretsStore, SecretsStore } from '@qodeassist/core';
import { QodeAssistSecretsStore, QodeAssistWritableSecrets } from '@qodeassist/theia/lib/node/backend-symbols';
import { defaultSecretsStore } from '@qodeassist/theia/lib/node/default-secrets';
import { ContainerModule } from '@theia/core/shared/inversify';
import { existsSync, readFileSync } from 'node:fs';

/**
 * The example product keeps team keys in a vault file of its own (here: a JSON object of
 * ref → key at the path in QODEASSIST_PRODUCT_VAULT, as a deployment tool would write it).
 * Read on every lookup, so a rotated key is used at once; absent or unreadable: no keys.
 */
export class ProductVaultSecrets implements SecretsStore {
    constructor(private readonly path: string | undefined) { }

    async get(ref: string): Promise<string | undefined> {
        if (!this.path || !existsSync(this.path)) {
            return undefined;
        }
        try {
            const value = (JSON.parse(readFileSync(this.path, 'utf8')) as Record<string, unknown>)[ref];
            return typeof value === 'string' && value.trim() ? value.trim() : undefined;
        } catch {
            return undefined;
        }
    }
}

/**
 * The one rebind: the product's vault first, then QodeAssist's own chain (environment, OS
 * keyring, the user's file). This module is listed after @qodeassist/theia (it depends on it),
 * so its rebind wins; everything else in QodeAssist stays as it is.
 */
export default new ContainerModule((_bind, _unbind, _isBound, rebind) => {
    rebind(QodeAssistSecretsStore).toDynamicValue(ctx => new ChainedSecretsStore([
        new ProductVaultSecrets(process.env.QODEASSIST_PRODUCT_VAULT),
        defaultSecretsStore(ctx.container.get(QodeAssistWritableSecrets))
    ])).inSingletonScope();
});
