import { createPreferenceProxy, PreferenceContribution, PreferenceProxy, PreferenceSchema, PreferenceService } from '@theia/core';
import { interfaces } from '@theia/core/shared/inversify';

export const QodeAssistPreferenceSchema: PreferenceSchema = {
    properties: {
        'qodeassist.chat.agent': {
            type: 'string',
            default: '',
            description: 'The agent that answers in chat. Empty: the first agent of the [chat] roster (.qodeassist/agents/rosters.toml) whose match rules fit.'
        },
        'qodeassist.chat.sendOnEnter': {
            type: 'boolean',
            default: true,
            description: 'Enter sends the message and Shift+Enter inserts a new line; when off, Ctrl+Enter sends.'
        }
    }
};

export interface QodeAssistConfiguration {
    'qodeassist.chat.agent': string;
    'qodeassist.chat.sendOnEnter': boolean;
}

export const QodeAssistPreferences = Symbol('QodeAssistPreferences');
export type QodeAssistPreferences = PreferenceProxy<QodeAssistConfiguration>;

export function bindQodeAssistPreferences(bind: interfaces.Bind): void {
    bind(QodeAssistPreferences).toDynamicValue(ctx =>
        createPreferenceProxy(ctx.container.get<PreferenceService>(PreferenceService), QodeAssistPreferenceSchema)).inSingletonScope();
    bind(PreferenceContribution).toConstantValue({ schema: QodeAssistPreferenceSchema });
}
