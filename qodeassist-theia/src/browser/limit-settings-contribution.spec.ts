import * as assert from 'node:assert/strict';
import { createPreferenceProxy, Emitter, PreferenceInspection, PreferenceService } from '@theia/core';
import type { LimitOverrides } from '../common/config-protocol';
import { LimitSettingsContribution } from './limit-settings-contribution';
import { scopeGuardedPreferences } from './preference-scopes';
import { QodeAssistConfiguration, QodeAssistPreferenceSchema } from './qodeassist-preferences';

type Scopes = Partial<Pick<PreferenceInspection<unknown>, 'globalValue' | 'workspaceValue' | 'workspaceFolderValue'>>;

/** Settings per scope that can change, as Theia's PreferenceService reports them. */
class FakeSettings {
    readonly values: Record<string, Scopes> = {};
    private readonly changed = new Emitter<Record<string, { preferenceName: string; affects: () => boolean }>>();

    readonly service = {
        inspect: (name: string): PreferenceInspection<unknown> => {
            const scopes = this.values[name] ?? {};
            const defaultValue = QodeAssistPreferenceSchema.properties[name]?.default;
            return { preferenceName: name, defaultValue, ...scopes, value: scopes.workspaceFolderValue ?? scopes.workspaceValue ?? scopes.globalValue ?? defaultValue } as PreferenceInspection<unknown>;
        },
        get: (name: string, fallback?: unknown) => this.service.inspect(name)?.value ?? fallback,
        overriddenPreferenceName: () => undefined,
        onPreferencesChanged: this.changed.event,
        ready: Promise.resolve(), isReady: true
    } as unknown as PreferenceService & { inspect: (name: string) => PreferenceInspection<unknown> };

    set(name: string, scopes: Scopes): void {
        this.values[name] = scopes;
        this.changed.fire({ [name]: { preferenceName: name, affects: () => true } });
    }
}

const settle = () => new Promise(resolve => setTimeout(resolve, 0));

describe('LimitSettingsContribution', () => {
    it('sends the user\'s limit settings at start, on each change of one, and when the connection opens again; a workspace value never', async () => {
        const settings = new FakeSettings();
        settings.values['qodeassist.limits.totalSeconds'] = { globalValue: 900, workspaceValue: 100_000 };
        settings.values['qodeassist.limits.maxToolRounds'] = { workspaceValue: 500 };
        const sent: LimitOverrides[] = [];
        const opened = new Emitter<void>();
        const contribution = Object.assign(new LimitSettingsContribution(), {
            preferences: createPreferenceProxy<QodeAssistConfiguration>(scopeGuardedPreferences(settings.service), QodeAssistPreferenceSchema),
            config: { setLimitOverrides: async (overrides: LimitOverrides) => { sent.push(overrides); }, onDidOpenConnection: opened.event }
        });

        contribution.onStart();
        await settle();
        assert.deepEqual(sent, [{ totalSeconds: 900 }], 'the repository\'s 100000 s and 500 rounds are not sent');

        settings.set('qodeassist.limits.idleSeconds', { globalValue: 0.2 });
        await settle();
        assert.deepEqual(sent.at(-1), { totalSeconds: 900, idleSeconds: 0.2 });

        settings.set('qodeassist.chat.agent', { globalValue: 'claude-chat' });
        await settle();
        assert.equal(sent.length, 2, 'other settings do not resend');

        opened.fire();
        await settle();
        assert.equal(sent.length, 3);
        assert.deepEqual(sent.at(-1), { totalSeconds: 900, idleSeconds: 0.2 });
        contribution.onStop();
    });
});
