import { createPreferenceProxy, PreferenceContribution, PreferenceProxy, PreferenceSchema, PreferenceService } from '@theia/core';
import { interfaces } from '@theia/core/shared/inversify';

export const QodeAssistPreferenceSchema: PreferenceSchema = {
    properties: {
        'qodeassist.provider.url': {
            type: 'string',
            default: 'http://localhost:11434/v1',
            description: 'Base URL of the OpenAI-compatible chat provider (Ollama serves one at http://localhost:11434/v1). Requests go from the Theia backend, not the browser.'
        },
        'qodeassist.provider.model': {
            type: 'string',
            default: 'qwen2.5-coder:7b',
            description: 'Model name sent with each chat request.'
        },
        'qodeassist.provider.apiKeyRef': {
            type: 'string',
            default: 'openai',
            description: 'Name of the API key, never the key itself. The backend reads the environment variable <NAME>_API_KEY (e.g. "openai" → OPENAI_API_KEY); no key is sent when it is unset.'
        },
        'qodeassist.chat.sendOnEnter': {
            type: 'boolean',
            default: true,
            description: 'Enter sends the message and Shift+Enter inserts a new line; when off, Ctrl+Enter sends.'
        }
    }
};

export interface QodeAssistConfiguration {
    'qodeassist.provider.url': string;
    'qodeassist.provider.model': string;
    'qodeassist.provider.apiKeyRef': string;
    'qodeassist.chat.sendOnEnter': boolean;
}

export const QodeAssistPreferences = Symbol('QodeAssistPreferences');
export type QodeAssistPreferences = PreferenceProxy<QodeAssistConfiguration>;

export function bindQodeAssistPreferences(bind: interfaces.Bind): void {
    bind(QodeAssistPreferences).toDynamicValue(ctx =>
        createPreferenceProxy(ctx.container.get<PreferenceService>(PreferenceService), QodeAssistPreferenceSchema)).inSingletonScope();
    bind(PreferenceContribution).toConstantValue({ schema: QodeAssistPreferenceSchema });
}
