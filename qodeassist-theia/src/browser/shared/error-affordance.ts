import type { ErrorCategory, ErrorInfo } from '@qodeassist/core';

/** Theia's command that opens the settings, filtered to a query. */
export const OPEN_PREFERENCES_COMMAND = 'preferences:open';

export type ChatErrorAction = 'retry' | 'open-settings' | 'summarize';

export interface ChatErrorAffordance {
    title: string;
    hint: string;
    actions: ChatErrorAction[];
}

const AFFORDANCES: Record<ErrorCategory, ChatErrorAffordance> = {
    Auth: {
        title: 'Authentication failed',
        hint: 'Keys are read on the machine running QodeAssist, never in the browser: set the environment variable named above and restart, or choose an agent on another provider.',
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
        actions: ['summarize', 'open-settings']
    },
    Config: {
        title: 'Configuration problem',
        hint: 'Check the agent and provider files under .qodeassist/ and the chat roster.',
        actions: ['open-settings']
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
