import { WireProtocolName } from './wire-protocols';

/** The provider APIs of ARCHITECTURE §5. */
export const CLIENT_APIS = [
    'ollama', 'ollama_openai', 'llamacpp', 'lmstudio', 'lmstudio_responses', 'claude', 'openai', 'openai_responses',
    'openai_compatible', 'openrouter', 'google', 'mistral', 'codestral', 'qwen', 'qwen_responses', 'deepseek', 'theia'
] as const;

export type ClientApi = typeof CLIENT_APIS[number];

export type ModelListFormat = 'ollama-tags' | 'openai' | 'anthropic' | 'gemini';

export interface ClientApiInfo {
    chatProtocol: WireProtocolName;
    fimProtocol?: WireProtocolName;
    /** Absent where the user must give one (openai_compatible). */
    defaultUrl?: string;
    chatEndpoint: string;
    fimEndpoint?: string;
    /** Other endpoints that take a raw prompt and stream like the FIM endpoint (llama.cpp's /completion: Zeta's next-edit format). */
    rawEndpoints?: readonly string[];
    models?: {
        endpoint: string;
        format: ModelListFormat;
        /** Drops what cannot chat (embeddings, speech, images…). */
        chatOnly?: boolean;
        /** A server that lacks the endpoint is not an error (OpenAI-compatible proxies). */
        optional?: boolean;
    };
    /** `none`: the IDE's own models (client_api "theia") hold their keys themselves. */
    auth: 'bearer' | 'anthropic' | 'google' | 'none';
}

const openAIModels = { endpoint: '/models', format: 'openai' } as const;

/** One row per client_api; everything that varies between providers besides the request body. */
export const CLIENT_API_INFO: Readonly<Record<ClientApi, ClientApiInfo>> = {
    ollama: {
        chatProtocol: 'ollama-chat', fimProtocol: 'ollama-generate', defaultUrl: 'http://localhost:11434',
        chatEndpoint: '/api/chat', fimEndpoint: '/api/generate', models: { endpoint: '/api/tags', format: 'ollama-tags' }, auth: 'bearer'
    },
    ollama_openai: { chatProtocol: 'openai-chat', defaultUrl: 'http://localhost:11434/v1', chatEndpoint: '/chat/completions', models: openAIModels, auth: 'bearer' },
    llamacpp: {
        chatProtocol: 'openai-chat', fimProtocol: 'llamacpp-infill', defaultUrl: 'http://localhost:8080',
        chatEndpoint: '/v1/chat/completions', fimEndpoint: '/infill', rawEndpoints: ['/completion'], models: { endpoint: '/v1/models', format: 'openai' }, auth: 'bearer'
    },
    lmstudio: { chatProtocol: 'openai-chat', defaultUrl: 'http://localhost:1234/v1', chatEndpoint: '/chat/completions', models: openAIModels, auth: 'bearer' },
    lmstudio_responses: { chatProtocol: 'openai-responses', defaultUrl: 'http://localhost:1234/v1', chatEndpoint: '/responses', models: openAIModels, auth: 'bearer' },
    claude: {
        chatProtocol: 'anthropic-messages', defaultUrl: 'https://api.anthropic.com', chatEndpoint: '/v1/messages',
        models: { endpoint: '/v1/models', format: 'anthropic' }, auth: 'anthropic'
    },
    openai: {
        chatProtocol: 'openai-chat', defaultUrl: 'https://api.openai.com/v1', chatEndpoint: '/chat/completions',
        models: { ...openAIModels, chatOnly: true }, auth: 'bearer'
    },
    openai_responses: {
        chatProtocol: 'openai-responses', defaultUrl: 'https://api.openai.com/v1', chatEndpoint: '/responses',
        models: { ...openAIModels, chatOnly: true }, auth: 'bearer'
    },
    openai_compatible: { chatProtocol: 'openai-chat', chatEndpoint: '/chat/completions', models: { ...openAIModels, optional: true }, auth: 'bearer' },
    openrouter: { chatProtocol: 'openai-chat', defaultUrl: 'https://openrouter.ai/api/v1', chatEndpoint: '/chat/completions', models: openAIModels, auth: 'bearer' },
    google: {
        chatProtocol: 'gemini', defaultUrl: 'https://generativelanguage.googleapis.com/v1beta',
        chatEndpoint: '/models/${MODEL}:streamGenerateContent?alt=sse', models: { endpoint: '/models', format: 'gemini' }, auth: 'google'
    },
    mistral: {
        chatProtocol: 'openai-chat', fimProtocol: 'mistral-fim', defaultUrl: 'https://api.mistral.ai', chatEndpoint: '/v1/chat/completions',
        fimEndpoint: '/v1/fim/completions', models: { endpoint: '/v1/models', format: 'openai' }, auth: 'bearer'
    },
    codestral: {
        chatProtocol: 'openai-chat', fimProtocol: 'mistral-fim', defaultUrl: 'https://codestral.mistral.ai', chatEndpoint: '/v1/chat/completions',
        fimEndpoint: '/v1/fim/completions', auth: 'bearer'
    },
    qwen: { chatProtocol: 'openai-chat', defaultUrl: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1', chatEndpoint: '/chat/completions', models: openAIModels, auth: 'bearer' },
    qwen_responses: { chatProtocol: 'openai-responses', defaultUrl: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1', chatEndpoint: '/responses', models: openAIModels, auth: 'bearer' },
    deepseek: { chatProtocol: 'openai-chat', defaultUrl: 'https://api.deepseek.com', chatEndpoint: '/chat/completions', models: openAIModels, auth: 'bearer' },
    // Theia AI's language models, reached through the IDE: no URL to call, the model is Theia's id for it.
    theia: { chatProtocol: 'theia-language-model', defaultUrl: 'theia:', chatEndpoint: '', auth: 'none' }
};

export const ANTHROPIC_VERSION = '2023-06-01';

/** Claude: `x-api-key` + version; Google: `x-goog-api-key`; the rest: Bearer, omitted without a key. */
export function authHeaders(api: ClientApi, apiKey: string | undefined): Record<string, string> {
    const auth = CLIENT_API_INFO[api].auth;
    if (auth === 'none') {
        return {};
    }
    if (auth === 'anthropic') {
        return { 'anthropic-version': ANTHROPIC_VERSION, ...(apiKey ? { 'x-api-key': apiKey } : {}) };
    }
    if (!apiKey) {
        return {};
    }
    return auth === 'google' ? { 'x-goog-api-key': apiKey } : { authorization: `Bearer ${apiKey}` };
}

/** Joins a base URL and an endpoint, substituting `${MODEL}` (URL-encoded). */
export function endpointUrl(baseUrl: string, endpoint: string, model?: string): string {
    const path = model === undefined ? endpoint : endpoint.split('${MODEL}').join(encodeURIComponent(model));
    return `${baseUrl.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
}
