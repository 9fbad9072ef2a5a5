import {
    CHAT_PROTOCOLS, ConfigurationService, CtxTool, HistoryBlock, HistoryMessage, needsKey, QodeAssistError, QodeAssistRuntime, ResolvedAgent, SessionEvent, ToolExecutor
} from '@qodeassist/core';
import {
    LanguageModel, LanguageModelMessage, LanguageModelRegistry, LanguageModelStreamResponse, LanguageModelStreamResponsePart, ToolCallResult, ToolRequest, UserRequest
} from '@theia/ai-core/lib/common';
import { CancellationToken } from '@theia/core';
import { inject, injectable, optional } from '@theia/core/shared/inversify';
import { QodeAssistConfiguration } from './backend-symbols';
import { ConfigurationProvider } from './workspace-configurations';
import { QodeAssistConnectionRuntime } from './connection-runtime';
import { QODEASSIST_MODEL_PREFIX } from './theia-host-models';

/** Theia's id of a QodeAssist agent as a language model. */
export function languageModelId(agentName: string): string {
    return `${QODEASSIST_MODEL_PREFIX}${agentName}`;
}

/**
 * QodeAssist's chat agents (the [chat] roster of the window's workspace) as language models in
 * Theia AI's registry of this connection, so Theia's own agents can run on them: the request's
 * messages seed a QodeAssist session (its context assembly, provider and key handling, tool
 * loop), Theia's tools run through their own handlers (Theia's confirmation included), and the
 * session's events stream back as Theia's response parts. The list follows the configuration.
 */
@injectable()
export class QodeAssistLanguageModels {
    @inject(LanguageModelRegistry) @optional() protected readonly registry?: LanguageModelRegistry;
    private published: string[] = [];
    private stopWatching: (() => void) | undefined;
    private workspace: string | undefined | null = null;

    constructor(
        @inject(QodeAssistConnectionRuntime) private readonly runtime: QodeAssistRuntime,
        @inject(QodeAssistConfiguration) private readonly configurations: ConfigurationProvider
    ) { }

    /** Publishes the agents of this workspace's configuration (undefined: none, e.g. QodeAssist is off), replacing what was there. */
    async publish(workspace: string | undefined, enabled: boolean): Promise<string[]> {
        const key = enabled ? workspace : null;
        if (key !== this.workspace) {
            this.stopWatching?.();
            this.stopWatching = undefined;
            this.workspace = key;
            if (enabled) {
                const service = this.configurations.forWorkspace(workspace);
                this.stopWatching = service.onDidChange(() => void this.republish(service));
            }
        }
        return this.republish(enabled ? this.configurations.forWorkspace(workspace) : undefined);
    }

    dispose(): void {
        this.stopWatching?.();
        this.registry?.removeLanguageModels(this.published);
        this.published = [];
    }

    private async republish(service: ConfigurationService | undefined): Promise<string[]> {
        if (!this.registry) {
            return [];
        }
        const models = service ? await this.modelsOf(service) : [];
        this.registry.removeLanguageModels(this.published);
        this.registry.addLanguageModels(models);
        this.published = models.map(model => model.id);
        return this.published;
    }

    private async modelsOf(service: ConfigurationService): Promise<LanguageModel[]> {
        const configuration = service.current;
        const agents = configuration.rosters.chat
            .map(name => configuration.agents.get(name))
            // An agent on Theia's own models is not offered back to Theia: that would be a model of itself.
            .filter((agent): agent is ResolvedAgent => !!agent && CHAT_PROTOCOLS.has(agent.protocol) && agent.provider.instance.client_api !== 'theia');
        return Promise.all(agents.map(async agent => {
            const ref = agent.provider.instance.api_key_ref ?? agent.provider.instance.name;
            const missingKey = needsKey(agent.provider.instance.client_api) && !await this.runtime.secrets.get(ref);
            const model: LanguageModel = {
                id: languageModelId(agent.name),
                name: `QodeAssist ${agent.name}`,
                vendor: 'QodeAssist',
                family: agent.provider.instance.name,
                version: agent.model,
                maxInputTokens: agent.contextWindow,
                maxOutputTokens: agent.maxOutputTokens,
                status: missingKey
                    ? { status: 'unavailable', message: `Provider "${agent.provider.instance.name}" needs an API key (QodeAssist: Open Configuration).` }
                    : { status: 'ready' },
                request: (request, token) => this.run(service, agent.name, request, token)
            };
            return model;
        }));
    }

    private async run(service: ConfigurationService, agentName: string, request: UserRequest, token?: CancellationToken): Promise<LanguageModelStreamResponse> {
        const events = new EventQueue();
        const shown = new ShownCalls();
        const manager = this.runtime.sessions(service);
        const session = await manager.acquire(agentName, batch => events.push(batch));
        try {
            const { system, history, prompt } = toConversation(request.messages);
            if (system) {
                session.setLayer('agent.system', system);
            }
            session.restore(history);
            const tools = request.tools ?? [];
            await session.send(prompt, tools.length ? { tools: tools.map(toCtxTool), executor: theiaToolExecutor(tools, shown, token) } : {});
        } catch (error) {
            await manager.release(session);
            throw error;
        }
        const cancel = token?.onCancellationRequested(() => void session.cancel());
        return {
            stream: (async function* (): AsyncGenerator<LanguageModelStreamResponsePart> {
                try {
                    for await (const event of events) {
                        const part = toPart(event);
                        if (part) {
                            yield part;
                            if (event.type === 'ToolCallEnd') {
                                // The consumer asked for the next part: the call is in Theia's response now.
                                shown.mark(event.callId);
                            }
                        }
                        if (event.type === 'Failed') {
                            throw new QodeAssistError(event.error);
                        }
                        if (event.type === 'Finished' || event.type === 'Cancelled') {
                            return;
                        }
                    }
                } finally {
                    cancel?.dispose();
                    await manager.release(session);
                }
            })()
        };
    }
}

/** Theia's messages as a QodeAssist conversation: system texts, the earlier turns, and the last user message to send. */
export function toConversation(messages: readonly LanguageModelMessage[]): { system: string; history: HistoryMessage[]; prompt: HistoryBlock[] } {
    const system: string[] = [];
    const history: HistoryMessage[] = [];
    for (const message of messages) {
        if (message.actor === 'system') {
            if (message.type === 'text') {
                system.push(message.text);
            }
            continue;
        }
        const block = toBlock(message);
        if (!block) {
            continue;
        }
        const role = message.actor === 'ai' ? 'assistant' : 'user';
        const last = history[history.length - 1];
        if (last?.role === role) {
            last.blocks.push(block);
        } else {
            history.push({ role, blocks: [block] });
        }
    }
    const prompt = history[history.length - 1]?.role === 'user' ? history.pop()!.blocks : [];
    return { system: system.join('\n\n'), history, prompt };
}

function toBlock(message: LanguageModelMessage): HistoryBlock | undefined {
    switch (message.type) {
        case 'text': return message.text ? { type: 'text', text: message.text } : undefined;
        case 'thinking': return { type: 'thinking', text: message.thinking, ...(message.signature ? { signature: message.signature } : {}) };
        case 'tool_use': return { type: 'tool_use', id: message.id, name: message.name, input: (message.input ?? {}) as Record<string, unknown> };
        case 'tool_result': return { type: 'tool_result', toolUseId: message.tool_use_id, name: message.name, content: resultText(message.content), isError: message.is_error === true };
        default: return undefined;
    }
}

function toCtxTool(tool: ToolRequest): CtxTool {
    return { name: tool.name, description: tool.description ?? '', parameters: { ...tool.parameters, type: 'object' } };
}

/**
 * Tool calls Theia's consumer has taken from the stream. Theia's chat finds a call's confirmation
 * and result place by its id in the response, so a handler must not run before its call is there.
 */
class ShownCalls {
    private readonly shown = new Set<string>();
    private readonly waiting = new Map<string, () => void>();

    mark(callId: string): void {
        this.shown.add(callId);
        this.waiting.get(callId)?.();
        this.waiting.delete(callId);
    }

    /** Resolves once the call was taken, or after `timeoutMs` (a consumer that stopped reading must not hang the loop). */
    async wait(callId: string, timeoutMs = 5_000): Promise<void> {
        if (this.shown.has(callId)) {
            return;
        }
        await new Promise<void>(resolve => {
            const timer = setTimeout(resolve, timeoutMs);
            this.waiting.set(callId, () => { clearTimeout(timer); resolve(); });
        });
    }
}

/** Theia's tools for QodeAssist's loop: each call goes through the tool's own handler (Theia's confirmation included). */
function theiaToolExecutor(tools: readonly ToolRequest[], shown: ShownCalls, token: CancellationToken | undefined): ToolExecutor {
    return {
        execute: async call => {
            const tool = tools.find(candidate => candidate.name === call.name || candidate.id === call.name);
            if (!tool) {
                return { content: `There is no tool named "${call.name}". Available: ${tools.map(candidate => candidate.name).join(', ')}.`, isError: true };
            }
            await shown.wait(call.callId);
            const result = await tool.handler(JSON.stringify(call.arguments), { toolCallId: call.callId, cancellationToken: token });
            const isError = typeof result === 'object' && result !== null && 'content' in result
                && Array.isArray((result as { content: unknown[] }).content) && (result as { content: Array<{ type?: string }> }).content.some(item => item.type === 'error');
            return { content: resultText(result), isError };
        }
    };
}

function resultText(result: ToolCallResult): string {
    if (result === undefined) {
        return '';
    }
    if (typeof result === 'string') {
        return result;
    }
    const content = (result as { content?: Array<{ type: string; text?: string; data?: string }> }).content;
    if (Array.isArray(content)) {
        return content.map(item => item.type === 'text' ? item.text ?? '' : item.type === 'error' ? item.data ?? '' : `[${item.type}]`).join('\n');
    }
    return JSON.stringify(result);
}

/** One session event as Theia's response part, where it has one. */
function toPart(event: SessionEvent): LanguageModelStreamResponsePart | undefined {
    switch (event.type) {
        case 'TextDelta': return { content: event.text };
        case 'ThinkingDelta': return { thought: event.text, signature: event.signature ?? '' };
        case 'ToolCallEnd': return { tool_calls: [{ id: event.callId, function: { name: event.name, arguments: JSON.stringify(event.arguments) }, finished: false }] };
        case 'ToolResult': return { tool_calls: [{ id: event.callId, function: { name: event.name }, finished: true, result: event.content }] };
        case 'Usage': return { input_tokens: event.inputTokens, output_tokens: event.outputTokens, ...(event.cachedTokens ? { cache_read_input_tokens: event.cachedTokens } : {}) };
        default: return undefined;
    }
}

/** Session events pushed by the listener, pulled one at a time by the response stream. */
class EventQueue implements AsyncIterable<SessionEvent> {
    private readonly queued: SessionEvent[] = [];
    private waiting: (() => void) | undefined;

    push(batch: readonly SessionEvent[]): void {
        this.queued.push(...batch);
        this.waiting?.();
        this.waiting = undefined;
    }

    async *[Symbol.asyncIterator](): AsyncIterator<SessionEvent> {
        for (;;) {
            const next = this.queued.shift();
            if (next) {
                yield next;
            } else {
                await new Promise<void>(resolve => { this.waiting = resolve; });
            }
        }
    }
}
