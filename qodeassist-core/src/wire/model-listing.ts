import { ClientApi, CLIENT_API_INFO, endpointUrl, authHeaders, ModelListFormat } from './client-apis';
import { CancelledError, ErrorInfo, QodeAssistError } from './error-info';
import { readAtMost, sendFollowingRedirects } from './http-request';
import { classifyNetworkFailure, httpStatusError } from './http-transport';
import { HostModels } from './host-models';
import { redactSecrets } from './redaction';
import { formatBytes } from './request-limits';
import { WIRE_PROTOCOLS } from './wire-protocols';

export interface ModelInfo {
    id: string;
    displayName?: string;
}

export interface ListModelsOptions {
    /** The IDE's own models, listed for a `theia` provider. */
    hostModels?: HostModels;
    baseUrl?: string;
    apiKey?: string;
    /** Headers besides the key's: through a gateway, the user's identity (gatewayHeadersFor), which the listing carries like every other call. */
    headers?: Readonly<Record<string, string>>;
    signal?: AbortSignal;
    timeoutMs?: number;
}

/** Model ids OpenAI lists that cannot answer a chat request. */
const NON_CHAT_MODEL = /embedding|whisper|tts|dall-e|davinci|babbage|moderation|realtime|transcribe|audio|image|search|computer-use/i;
const MAX_PAGES = 20;
/**
 * One page of a model list, read no further: the longest real list (OpenRouter's, with every
 * model's description and prices) is a few MB.
 */
export const MAX_MODEL_LIST_BYTES = 16 * 1024 * 1024;

interface Page {
    models: ModelInfo[];
    /** Query parameters for the next page, if any. */
    next?: Record<string, string>;
}

type PageParser = (json: unknown) => Page;

const PARSERS: Record<ModelListFormat, PageParser> = {
    'ollama-tags': json => ({
        models: ((json as { models?: Array<{ name: string }> }).models ?? []).map(model => ({ id: model.name }))
    }),
    openai: json => ({
        models: ((json as { data?: Array<{ id: string }> }).data ?? []).map(model => ({ id: model.id }))
    }),
    anthropic: json => {
        const page = json as { data?: Array<{ id: string; display_name?: string }>; has_more?: boolean; last_id?: string };
        return {
            models: (page.data ?? []).map(model => ({ id: model.id, displayName: model.display_name })),
            next: page.has_more && page.last_id ? { after_id: page.last_id } : undefined
        };
    },
    gemini: json => {
        const page = json as { models?: Array<{ name: string; displayName?: string; supportedGenerationMethods?: string[] }>; nextPageToken?: string };
        return {
            models: (page.models ?? [])
                .filter(model => model.supportedGenerationMethods?.includes('generateContent'))
                .map(model => ({ id: model.name.replace(/^models\//, ''), displayName: model.displayName })),
            next: page.nextPageToken ? { pageToken: page.nextPageToken } : undefined
        };
    }
};

/**
 * The models a provider offers, following pagination. Errors are typed like any
 * provider call; a provider API without a listing endpoint is a Config error that
 * says to type the model name instead.
 */
export async function listModels(api: ClientApi, options: ListModelsOptions = {}): Promise<ModelInfo[]> {
    const info = CLIENT_API_INFO[api];
    if (WIRE_PROTOCOLS[info.chatProtocol].framing === 'host') {
        return listHostModels(options.hostModels);
    }
    const baseUrl = options.baseUrl ?? info.defaultUrl;
    if (!info.models) {
        throw new QodeAssistError({ category: 'Config', message: `The ${api} API does not list its models. Type the model name in the agent or provider settings.` });
    }
    if (!baseUrl) {
        throw new QodeAssistError({ category: 'Config', message: `The ${api} provider needs a URL before its models can be listed. Set "url" in the provider instance.` });
    }
    const parse = PARSERS[info.models.format];
    const models: ModelInfo[] = [];
    let query: Record<string, string> | undefined = {};
    for (let page = 0; query && page < MAX_PAGES; page++) {
        const url = new URL(endpointUrl(baseUrl, info.models.endpoint));
        for (const [key, value] of Object.entries(query)) {
            url.searchParams.set(key, value);
        }
        const json = await getJson(url.toString(), { ...options.headers, ...authHeaders(api, options.apiKey) }, options, info.models.optional === true);
        if (json === undefined) {
            return [];
        }
        const result = parse(json);
        models.push(...result.models);
        query = result.next;
    }
    return info.models.chatOnly ? models.filter(model => !NON_CHAT_MODEL.test(model.id)) : models;
}

async function listHostModels(hostModels: HostModels | undefined): Promise<ModelInfo[]> {
    if (!hostModels) {
        throw new QodeAssistError({ category: 'Config', message: 'The IDE\'s language models (client_api "theia") can only be listed inside a Theia IDE with Theia AI.' });
    }
    return (await hostModels.list()).map(model => ({ id: model.id, ...(model.name && model.name !== model.id ? { displayName: model.name } : {}) }));
}

async function getJson(url: string, headers: Record<string, string>, options: ListModelsOptions, optional: boolean): Promise<unknown> {
    const secrets = options.apiKey ? [options.apiKey] : [];
    const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs ?? 15_000), ...(options.signal ? [options.signal] : [])]);
    let bytes: Buffer;
    try {
        const response = await sendFollowingRedirects({ method: 'GET', url, headers, signal });
        if (response.status === 404 && optional) {
            response.close();
            return undefined;
        }
        if (response.status < 200 || response.status > 299) {
            throw new QodeAssistError(await httpStatusError(response, url, secrets));
        }
        // One byte past the limit tells a list that is exactly the limit from one that is longer.
        const body = await readAtMost(response, MAX_MODEL_LIST_BYTES + 1);
        if (body.broken !== undefined) {
            throw body.broken;
        }
        bytes = body.bytes;
    } catch (error) {
        if (options.signal?.aborted) {
            throw new CancelledError();
        }
        if (error instanceof QodeAssistError) {
            throw error;
        }
        throw new QodeAssistError(classifyNetworkFailure(error, url));
    }
    if (bytes.byteLength > MAX_MODEL_LIST_BYTES) {
        throw new QodeAssistError({
            category: 'Provider',
            message: `The model list from ${new URL(url).origin} is longer than ${formatBytes(MAX_MODEL_LIST_BYTES)} (the limit on a model list), so it was not read. `
                + 'Check that the URL points at the provider\'s API; if the list really is this long, type the model name in the agent or provider settings instead.'
        });
    }
    const text = new TextDecoder().decode(bytes);
    try {
        return JSON.parse(text);
    } catch {
        const error: ErrorInfo = {
            category: 'Provider',
            message: `The model list from ${new URL(url).origin} is not JSON. Check that the URL points at the provider's API.`,
            providerDetail: redactSecrets(text.slice(0, 200), secrets)
        };
        throw new QodeAssistError(error);
    }
}
