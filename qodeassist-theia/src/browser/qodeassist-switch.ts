import { AIActivationService } from '@theia/ai-core/lib/browser/ai-activation-service';
import { Disposable, DisposableCollection, PreferenceService } from '@theia/core';
import { inject, injectable, optional } from '@theia/core/shared/inversify';
import { disabledReason, QodeAssistPreferences } from './qodeassist-preferences';

/** The IDE-wide AI switch as a preference (`@theia/ai-ide` keeps it there). */
const IDE_AI_SWITCH = 'ai-features.AiEnable.enableAI';

/**
 * Whether QodeAssist may act now, for every feature from one place: its per-project switch
 * (`qodeassist.enabled`) and the IDE's AI switch (the preference, and Theia AI's activation
 * service, which a product may define its own way).
 */
@injectable()
export class QodeAssistSwitch {
    @inject(QodeAssistPreferences) protected readonly preferences: QodeAssistPreferences;
    @inject(PreferenceService) protected readonly preferenceService: PreferenceService;
    @inject(AIActivationService) @optional() protected readonly activation?: AIActivationService;

    /** Why QodeAssist must not act now; undefined when it may. */
    get offReason(): string | undefined {
        return disabledReason(this.preferences, this.preferenceService, this.activation);
    }

    /** Calls `listener` whenever one of the switches may have changed. */
    onDidChange(listener: () => void): Disposable {
        const listening = new DisposableCollection(
            this.preferences.onPreferenceChanged(change => change.preferenceName === 'qodeassist.enabled' && listener()),
            this.preferenceService.onPreferenceChanged(change => change.preferenceName === IDE_AI_SWITCH && listener())
        );
        if (this.activation) {
            listening.push(this.activation.onDidChangeActiveStatus(() => listener()));
        }
        return listening;
    }
}
