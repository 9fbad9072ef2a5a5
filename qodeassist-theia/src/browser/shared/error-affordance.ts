import type { ErrorCategory, ErrorInfo } from '@qodeassist/core';
import { nls } from '@theia/core';
import { ConfigurationTarget } from './configuration-target';

export type ChatErrorAction = 'retry' | 'open-settings' | 'summarize';

export interface ChatErrorAffordance {
    title: string;
    hint: string;
    actions: ChatErrorAction[];
}

const AFFORDANCES: Record<ErrorCategory, ChatErrorAffordance> = {
    Auth: {
        title: 'Authentication failed',
        hint: 'Set the provider\'s key in the QodeAssist configuration (kept on the machine running QodeAssist, never in the browser), or the environment variable named above, or choose an agent on another provider.',
        actions: ['open-settings', 'retry']
    },
    Network: {
        title: 'Provider unreachable',
        hint: 'Check that the provider is running and that the url in its provider file (.qodeassist/providers/*.toml) is right.',
        actions: ['retry', 'open-settings']
    },
    Provider: {
        title: 'Provider error',
        hint: 'The provider failed to answer. Retrying often helps.',
        actions: ['retry']
    },
    Validation: {
        title: 'Request rejected',
        hint: 'When the conversation no longer fits, summarize it to go on; otherwise check the model name and request settings.',
        actions: ['summarize', 'open-settings', 'retry']
    },
    Config: {
        title: 'Configuration problem',
        hint: 'Check the agent and provider files under .qodeassist/ and the chat roster.',
        actions: ['open-settings', 'retry']
    },
    Tool: {
        title: 'Tool failed',
        hint: 'A tool call failed; the details are below.',
        actions: ['retry']
    }
};

/** What the chat shows for an error: the category decides the title and the buttons. */
export function affordanceFor(error: ErrorInfo): ChatErrorAffordance {
    return AFFORDANCES[error.category];
}

/**
 * Where "Open Settings" leads for an error: the provider's key field for an Auth error (keys are
 * set in the configuration view, not in Theia's preferences), its connection test for a Network
 * error, the agents (model names) for a rejected request, the problems list for the rest.
 */
export function settingsTargetFor(error: ErrorInfo): ConfigurationTarget {
    const provider = error.provider ? { provider: error.provider } : {};
    switch (error.category) {
        case 'Auth': return { section: 'providers', ...provider, field: 'key' };
        case 'Network': return { section: 'providers', ...provider, field: 'test' };
        case 'Provider': return { section: 'providers', ...provider };
        case 'Validation': return { section: 'agents' };
        case 'Config':
        case 'Tool': return { section: 'issues' };
    }
}

/** The button's words and its tooltip; an Auth error's settings button says whose key it sets. */
export function actionText(action: ChatErrorAction, error: ErrorInfo): { label: string; tooltip: string } {
    switch (action) {
        case 'retry': return {
            label: nls.localize('qodeassist/chat/retry', 'Retry'),
            tooltip: nls.localize('qodeassist/chat/retryTitle', 'Ask for this answer again')
        };
        case 'summarize': return {
            label: nls.localize('qodeassist/chat/summarize', 'Summarize'),
            tooltip: nls.localize('qodeassist/chat/summarizeErrorTitle', 'Summarize this chat into a new one that fits (the original is kept)')
        };
        case 'open-settings': return error.category === 'Auth'
            ? {
                label: nls.localize('qodeassist/chat/setKey', 'Set API Key'),
                tooltip: error.provider
                    ? nls.localize('qodeassist/chat/setKeyOfTitle', 'Open the QodeAssist configuration at the key of provider "{0}"', error.provider)
                    : nls.localize('qodeassist/chat/setKeyTitle', 'Open the QodeAssist configuration at the providers\' keys')
            }
            : {
                label: nls.localize('qodeassist/chat/openConfiguration', 'Open Configuration'),
                tooltip: nls.localize('qodeassist/chat/openSettingsTitle', 'Open the QodeAssist configuration')
            };
    }
}
