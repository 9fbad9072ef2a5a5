import type { ErrorCategory, ErrorInfo } from '@qodeassist/core';

export type ChatErrorAction = 'retry' | 'open-settings';

export interface ChatErrorAffordance {
    title: string;
    hint: string;
    actions: ChatErrorAction[];
}

const AFFORDANCES: Record<ErrorCategory, ChatErrorAffordance> = {
    Auth: {
        title: 'Authentication failed',
        hint: 'The provider refused the API key. Set the key on the machine running the Theia backend (for the key reference "openai": the environment variable OPENAI_API_KEY) and restart it, or point QodeAssist at another provider.',
        actions: ['open-settings', 'retry']
    },
    Network: {
        title: 'Provider unreachable',
        hint: 'Check that the provider is running and that "QodeAssist › Provider: Url" is right.',
        actions: ['retry', 'open-settings']
    },
    Provider: {
        title: 'Provider error',
        hint: 'The provider failed to answer. Retrying often helps.',
        actions: ['retry']
    },
    Validation: {
        title: 'Request rejected',
        hint: 'Check the model name and request settings.',
        actions: ['open-settings']
    },
    Config: {
        title: 'Configuration problem',
        hint: 'Check the provider URL and model in the QodeAssist settings.',
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
