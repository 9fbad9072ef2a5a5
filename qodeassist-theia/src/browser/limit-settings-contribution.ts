import { DisposableCollection } from '@theia/core';
import type { FrontendApplicationContribution } from '@theia/core/lib/browser';
import type { RpcConnectionEventEmitter } from '@theia/core/lib/common/messaging/proxy-factory';
import { inject, injectable } from '@theia/core/shared/inversify';
import { QodeAssistConfigService } from '../common/config-protocol';
import { limitOverridesOf, QodeAssistPreferences } from './qodeassist-preferences';

/**
 * Keeps the backend's limits for this window at the `qodeassist.limits.*` settings: sent at
 * start, on every change, and whenever the connection opens again (the backend keeps them per
 * connection, so a new one starts without them).
 */
@injectable()
export class LimitSettingsContribution implements FrontendApplicationContribution {
    @inject(QodeAssistPreferences) protected readonly preferences: QodeAssistPreferences;
    @inject(QodeAssistConfigService) protected readonly config: QodeAssistConfigService & Partial<RpcConnectionEventEmitter>;

    protected readonly toDispose = new DisposableCollection();

    onStart(): void {
        void this.preferences.ready.then(() => this.send());
        this.toDispose.push(this.preferences.onPreferenceChanged(change => {
            if (change.preferenceName.startsWith('qodeassist.limits.')) {
                void this.send();
            }
        }));
        const reopened = this.config.onDidOpenConnection?.(() => void this.send());
        if (reopened) {
            this.toDispose.push(reopened);
        }
    }

    onStop(): void {
        this.toDispose.dispose();
    }

    protected async send(): Promise<void> {
        // A backend that cannot be reached now is told again when the connection opens.
        await this.config.setLimitOverrides(limitOverridesOf(this.preferences)).catch(() => undefined);
    }
}
