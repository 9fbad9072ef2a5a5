import { CancelledError, HostModelPart, HostModelRequest, HostModels, QodeAssistError } from '@qodeassist/core';
import {
    isTextResponsePart, isThinkingResponsePart, isToolCallResponsePart, isUsageResponsePart, LanguageModel, LanguageModelMessage, LanguageModelRegistry,
    LanguageModelResponse, ToolCall, ToolRequest, ToolRequestParameters
} from '@theia/ai-core/lib/common';
import { CancellationTokenSource } from '@theia/core';
import { inject, injectable, optional } from '@theia/core/shared/inversify';
import { randomUUID } from 'node:crypto';

/** Ids QodeAssist's own agents carry in Theia's registry: never offered back as a `theia` provider model (no loops). */
export const QODEASSIST_MODEL_PREFIX = 'qodeassist/';

/** A tool call as Theia's models stream it: fragments merged the way Theia's chat merges them. */
interface PendingCall {
    id: string;
    name: string;
    arguments: string;
}

/**
 * Theia AI's language models (this connection's registry: its OpenAI, Anthropic, Ollama…
 * models with their own keys) as the host models of `client_api = "theia"` agents.
 *
 * QodeAssist runs the tool loop itself (permissions, history, the working set), but Theia's
 * models run tools inside `request`: so each tool is handed over with a handler that only
 * marks the end of the model's turn. When Theia calls the first handler the assistant message
 * is complete — every call in it has streamed — and the request is cancelled; the calls go
 * back to QodeAssist's loop, and the next round is a new request with the results.
 */
@injectable()
export class TheiaHostModels implements HostModels {
    @inject(LanguageModelRegistry) @optional() protected readonly registry?: LanguageModelRegistry;

    async list(): Promise<Array<{ id: string; name?: string; ready: boolean }>> {
        return (await this.models()).map(model => ({ id: model.id, name: model.name, ready: model.status.status === 'ready' }));
    }

    async *stream(request: HostModelRequest, signal?: AbortSignal): AsyncGenerator<HostModelPart[]> {
        const model = await this.modelFor(request.model);
        const cancel = new CancellationTokenSource();
        const onAbort = () => cancel.cancel();
        signal?.addEventListener('abort', onAbort);
        let handedOver = false;
        const tools: ToolRequest[] = (request.tools ?? []).map(tool => ({
            id: tool.name,
            name: tool.name,
            description: tool.description,
            parameters: toParameters(tool.parameters),
            providerName: 'QodeAssist',
            handler: async () => {
                handedOver = true;
                cancel.cancel();
                return 'QodeAssist runs this call itself.';
            }
        }));
        const calls: PendingCall[] = [];
        try {
            let response: LanguageModelResponse;
            try {
                response = await model.request({
                    sessionId: `qodeassist-${randomUUID()}`, requestId: randomUUID(), agentId: 'qodeassist',
                    messages: request.messages as LanguageModelMessage[], ...(tools.length ? { tools } : {}),
                    ...(request.settings ? { settings: request.settings } : {}), cancellationToken: cancel.token
                }, cancel.token);
            } catch (error) {
                throw this.failure(error, model, signal);
            }
            if ('text' in response) {
                yield [{ type: 'text', text: response.text }, ...usageOf(response.usage)];
            } else if ('parsed' in response) {
                yield [{ type: 'text', text: response.content }, ...usageOf(response.usage)];
            } else {
                try {
                    for await (const part of response.stream) {
                        if (handedOver) {
                            break;
                        }
                        const parts: HostModelPart[] = [];
                        if (isTextResponsePart(part) && part.content) {
                            parts.push({ type: 'text', text: part.content });
                        } else if (isThinkingResponsePart(part)) {
                            parts.push({ type: 'thinking', text: part.thought, ...(part.signature ? { signature: part.signature } : {}) });
                        } else if (isToolCallResponsePart(part)) {
                            part.tool_calls.forEach(call => mergeCall(calls, call));
                        } else if (isUsageResponsePart(part)) {
                            parts.push(...usageOf(part));
                        }
                        if (parts.length) {
                            yield parts;
                        }
                    }
                } catch (error) {
                    if (!handedOver) {
                        throw this.failure(error, model, signal);
                    }
                }
            }
            if (signal?.aborted) {
                throw new CancelledError();
            }
            const complete = calls.filter(call => call.name);
            yield [
                ...complete.map(call => ({ type: 'tool_call' as const, id: call.id, name: call.name, arguments: call.arguments })),
                { type: 'end', reason: complete.length ? 'tool_use' : 'end_turn' }
            ];
        } finally {
            signal?.removeEventListener('abort', onAbort);
            cancel.dispose();
        }
    }

    private async models(): Promise<LanguageModel[]> {
        if (!this.registry) {
            return [];
        }
        return (await this.registry.getLanguageModels()).filter(model => !model.id.startsWith(QODEASSIST_MODEL_PREFIX));
    }

    private async modelFor(id: string): Promise<LanguageModel> {
        const models = await this.models();
        const model = models.find(candidate => candidate.id === id);
        if (!model) {
            const known = models.map(candidate => candidate.id);
            throw new QodeAssistError({
                category: 'Config',
                message: `Theia AI has no language model "${id}" in this window. ${known.length ? `It has: ${known.join(', ')}.` : 'It has none: configure one in the AI settings (e.g. an OpenAI-compatible model).'} Set the agent's model to one of them.`
            });
        }
        if (model.status.status !== 'ready') {
            throw new QodeAssistError({
                category: 'Config',
                message: `Theia AI's language model "${id}" is not ready${model.status.message ? `: ${model.status.message}` : ''}. Fix it in the AI settings (often a missing API key).`
            });
        }
        return model;
    }

    private failure(error: unknown, model: LanguageModel, signal: AbortSignal | undefined): Error {
        if (signal?.aborted) {
            return new CancelledError();
        }
        if (error instanceof QodeAssistError) {
            return error;
        }
        const message = error instanceof Error ? error.message : String(error);
        return new QodeAssistError({
            category: /\b(401|403)\b|api key|unauthori[sz]ed/i.test(message) ? 'Auth' : 'Provider',
            message: `Theia AI's language model "${model.id}" failed: ${message}`
        });
    }
}

/** Theia's tool schema: an object schema's properties and required list. */
function toParameters(schema: Record<string, unknown>): ToolRequestParameters {
    const properties = (schema.properties ?? {}) as ToolRequestParameters['properties'];
    const required = Array.isArray(schema.required) ? schema.required as string[] : undefined;
    return { type: 'object', properties, ...(required ? { required } : {}) };
}

function usageOf(usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number } | undefined): HostModelPart[] {
    return usage ? [{ type: 'usage', inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, ...(usage.cache_read_input_tokens ? { cachedTokens: usage.cache_read_input_tokens } : {}) }] : [];
}

/**
 * Theia's streaming rule for tool calls: a delta for a known id appends; a full update for a
 * known id replaces the arguments; a fragment without id or name continues the last call.
 * Results of calls Theia ran (there are none here: the handlers only hand over) are ignored.
 */
function mergeCall(calls: PendingCall[], call: ToolCall): void {
    const known = call.id ? calls.find(candidate => candidate.id === call.id) : undefined;
    const args = call.function?.arguments;
    if (known) {
        if (call.function?.name) {
            known.name = call.function.name;
        }
        if (args) {
            known.arguments = call.argumentsDelta ? known.arguments + args : args;
        }
    } else if (!call.id && !call.function?.name && args !== undefined && calls.length) {
        calls[calls.length - 1].arguments += args;
    } else if (call.id || call.function?.name) {
        calls.push({ id: call.id ?? `call_${calls.length}`, name: call.function?.name ?? '', arguments: args ?? '' });
    }
}
