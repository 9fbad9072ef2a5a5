import { CtxBlock, CtxTool, NextEditContext, TemplateContext } from '../prompt/template-context';
import { describeAgentPlan, describeAgentToolCall } from './agent-activity';
import { HistoryBlock, HistoryMessage } from './conversation-history';
import { QodeAssistError } from '../wire/error-info';
import { keptToolImages, ToolResultImage } from '../wire/tool-result-images';
import { ContentLoader } from './content-loader';
import { ContextManifest } from './context-manifest';
import { formatFile } from './env-block';
import { normalizeToolTrace } from './tool-trace';
import { protectedCalls, workingSetOf } from './working-set';
import { EstimateInput, TokenEstimator } from './token-estimator';
import { applyBudget, findLastIndex, measureAll, measureMessage, Sized } from './context-budget';

export interface SystemLayer {
    name: string;
    text: string;
}

/** A pinned provider's output for this send, e.g. a linked file read now. */
export interface PinnedMaterialization {
    id: string;
    label: string;
    text: string;
}

export interface CompletionInput {
    prefix: string;
    suffix: string;
    language?: string;
    filePath?: string;
    files?: Array<{ path: string; content: string }>;
    /** Cross-file context for templates with a repository format (`ctx.repo_files`); each file is a manifest section. */
    repoFiles?: Array<{ path: string; content: string; source: string }>;
    repoName?: string;
    /** Next edit suggestions' excerpt and recent edits (`ctx.next_edit`). */
    nextEdit?: NextEditContext;
}

export interface BudgetSettings {
    contextWindow: number;
    /** Output reserve, from the agent's body (max_tokens…). */
    maxOutputTokens: number;
    /** Tool rounds whose results are never elided. */
    keepRecentToolRounds?: number;
}

export interface AssembleInput {
    layers: readonly SystemLayer[];
    /** The whole conversation, this turn's user message included. */
    history: readonly HistoryMessage[];
    pinned: readonly PinnedMaterialization[];
    tools: readonly CtxTool[];
    completion?: CompletionInput;
    budget: BudgetSettings;
    /** TokenEstimator calibration key (provider/model). */
    estimatorKey: string;
    /** Only measuring (the token counter): an over-budget context is reported in the manifest, not thrown. */
    preview?: boolean;
    /**
     * The agent's name when it takes no images: earlier images go as a placeholder that says so
     * (counted as sent), and a turn that attaches one is refused — never dropped in silence.
     */
    imagelessAgent?: string;
}

export interface Assembly {
    ctx: TemplateContext;
    manifest: ContextManifest;
    /** What was counted, for calibrating the estimator against the provider's Usage. */
    measured: EstimateInput;
}

/** Stable layers first: the more stable, the earlier, so prompt caches reuse the longest prefix. */
const LAYER_RANK: Record<string, number> = { 'agent.system': 0, 'agent.role': 0.5, 'env.project': 1, 'skills.catalog': 2 };
/** The layer name of a repository rules file starts so: the manifest lists each with its tokens, so the chat shows which were used. */
export const RULES_LAYER_PREFIX = 'rules: ';
/** The repository's rules files come after the project's environment, before the skills catalog. */
const rankOf = (name: string) => LAYER_RANK[name] ?? (name.startsWith(RULES_LAYER_PREFIX) ? 1.5 : 3);
const WARN_AT = 0.85;

/**
 * The only producer of `ctx.*`, once per send: placement policy, serialization
 * filters, materialization through the ContentLoader, the budget, and the manifest.
 * Nothing is dropped silently: every filter and elision leaves a manifest record.
 */
export class ContextAssembler {
    constructor(private readonly estimator: TokenEstimator, private readonly loader: ContentLoader) { }

    async assemble(input: AssembleInput): Promise<Assembly> {
        const estimate = (chars: number, images = 0) => this.estimator.estimate({ chars, images }, input.estimatorKey);
        const manifest: ContextManifest = {
            layers: [], history: { messages: 0, tokens: 0, toolRounds: 0 }, pinned: [], task: { tokens: 0, images: 0 },
            tools: { count: input.tools.length, tokens: 0 }, elisions: [], filters: [], estimate: 0, limit: 0,
            sections: [], repairs: {}, budget: { system: 0, tools: 0, history: 0, workingSet: 0, pinned: 0, protectedEvidence: 0 }
        };

        const layers = [...input.layers].filter(layer => layer.text.trim()).sort((a, b) => rankOf(a.name) - rankOf(b.name));
        const systemPrompt = layers.map(layer => layer.text.trim()).join('\n\n');
        manifest.layers = layers.map(layer => ({ name: layer.name, tokens: estimate(layer.text.length) }));

        const imageRefusal = input.imagelessAgent === undefined ? undefined : imagesRefused(input.history, input.imagelessAgent);
        if (imageRefusal && !input.preview) {
            throw new QodeAssistError({ category: 'Validation', message: imageRefusal });
        }
        const { sized: messages, indexOf } = await this.serialize(input.history, manifest, input.imagelessAgent);
        const working = workingSetOf(input.history);
        const workingAt = this.placeWorkingSet(messages, indexOf, working, manifest, estimate);
        const turn = this.placePinned(messages, input.pinned, manifest, estimate);

        const toolChars = input.tools.reduce((sum, tool) => sum + tool.name.length + tool.description.length + JSON.stringify(tool.parameters).length, 0);
        manifest.tools.tokens = estimate(toolChars);
        const completionChars = (input.completion?.prefix.length ?? 0) + (input.completion?.suffix.length ?? 0)
            + [...input.completion?.files ?? [], ...input.completion?.repoFiles ?? []].reduce((sum, file) => sum + file.content.length, 0)
            + nextEditChars(input.completion?.nextEdit);
        for (const file of input.completion?.repoFiles ?? []) {
            manifest.sections.push({ name: `${file.source} ${file.path}`, tokens: estimate(file.path.length + file.content.length), placement: 'repo_files' });
        }
        const fixedChars = systemPrompt.length + toolChars + completionChars;

        manifest.limit = input.budget.contextWindow - input.budget.maxOutputTokens;
        const protectedIds = protectedCalls(working.set);
        applyBudget(messages, fixedChars, input.budget.keepRecentToolRounds, manifest, estimate, { protectedIds, superseded: working.superseded });
        const trace = normalizeToolTrace(messages.map(sized => sized.message));
        for (const filter of manifest.filters) {
            if (filter.kind === 'orphaned_tool_use' || filter.kind === 'orphaned_tool_result') {
                trace.repairs[filter.kind] = (trace.repairs[filter.kind] ?? 0) + 1;
            }
        }
        manifest.repairs = trace.repairs as Record<string, number>;
        if (Object.keys(trace.repairs).length > 0) {
            messages.splice(0, messages.length, ...trace.messages.map(measureMessage));
        }

        const measured = measureAll(messages, fixedChars);
        manifest.estimate = estimate(measured.chars, measured.images);
        manifest.history = {
            messages: messages.length,
            tokens: messages.reduce((sum, sized) => sum + estimate(sized.chars, sized.images), 0),
            toolRounds: messages.filter(sized => sized.message.content.some(block => block.type === 'tool_result')).length
        };
        if (turn) {
            manifest.task = { tokens: estimate(turn.chars, turn.images), images: turn.images };
        }
        manifest.budget = {
            system: estimate(systemPrompt.length), tools: manifest.tools.tokens, history: manifest.history.tokens,
            workingSet: workingAt === undefined ? 0 : estimate(working.text.length),
            pinned: manifest.pinned.reduce((sum, pin) => sum + pin.tokens, 0),
            protectedEvidence: estimate(messages.reduce((sum, sized) => sum + sized.message.content.reduce((chars, block) =>
                chars + (block.type === 'tool_result' && protectedIds.has(block.tool_use_id) ? block.content.length : 0), 0), 0))
        };
        if (manifest.estimate > manifest.limit) {
            manifest.refusal = `The conversation needs about ${manifest.estimate} tokens but this agent allows ${manifest.limit} (context window minus the reply). Summarize the chat to continue, or start a new one.`;
            if (!input.preview) {
                throw new QodeAssistError({ category: 'Validation', message: manifest.refusal });
            }
        }
        if (imageRefusal) {
            manifest.refusal = imageRefusal;
        }
        if (manifest.estimate > manifest.limit * WARN_AT) {
            manifest.warning = `The context is ${Math.round(100 * manifest.estimate / manifest.limit)}% full; older tool results and attachments will be elided, then the request refused. Summarize the chat soon.`;
        }

        const ctx: TemplateContext = {
            system_prompt: systemPrompt,
            history: messages.map(sized => sized.message),
            files_metadata: input.completion?.files ?? [],
            tools: [...input.tools],
            ...(input.completion ? {
                prefix: input.completion.prefix, suffix: input.completion.suffix,
                language: input.completion.language, file_path: input.completion.filePath,
                ...(input.completion.repoFiles?.length ? { repo_files: input.completion.repoFiles, repo_name: input.completion.repoName } : {}),
                file_info: formatFile({ activeFile: input.completion.filePath, language: input.completion.language }),
                ...(input.completion.nextEdit ? { next_edit: input.completion.nextEdit } : {})
            } : {})
        };
        return { ctx, manifest, measured };
    }

    /** History → ctx messages: unsigned thinking and orphaned tool pairs filtered, stored content materialized. */
    private async serialize(history: readonly HistoryMessage[], manifest: ContextManifest, imagelessAgent: string | undefined): Promise<{ sized: Sized[]; indexOf: number[] }> {
        const uses = new Set<string>();
        const results = new Set<string>();
        for (const message of history) {
            for (const block of message.blocks) {
                if (block.type === 'tool_use') {
                    uses.add(block.id);
                } else if (block.type === 'tool_result') {
                    results.add(block.toolUseId);
                }
            }
        }
        const sized: Sized[] = [];
        // History index → index of its serialized message (-1 when nothing of it is sent).
        const indexOf: number[] = [];
        for (const message of history) {
            const content: CtxBlock[] = [];
            for (const block of message.blocks) {
                const converted = block.type === 'image' && imagelessAgent !== undefined
                    ? imagePlaceholder(block.ref.name, imagelessAgent, manifest)
                    : await this.convert(block, uses, results, manifest, imagelessAgent);
                if (converted) {
                    content.push(converted);
                }
            }
            indexOf.push(content.length > 0 ? sized.length : -1);
            if (content.length > 0) {
                sized.push(measureMessage({ role: message.role, content }));
            }
        }
        return { sized, indexOf };
    }

    private async convert(block: HistoryBlock, uses: Set<string>, results: Set<string>, manifest: ContextManifest, imagelessAgent: string | undefined): Promise<CtxBlock | undefined> {
        switch (block.type) {
            case 'text':
                return { type: 'text', text: block.text };
            case 'thinking':
                if (!block.signature) {
                    manifest.filters.push({ kind: 'unsigned_thinking', detail: `${block.text.length} chars` });
                    return undefined;
                }
                return { type: 'thinking', thinking: block.text, signature: block.signature };
            case 'redacted_thinking':
                return { type: 'redacted_thinking', data: block.data };
            case 'tool_use':
                if (!results.has(block.id)) {
                    manifest.filters.push({ kind: 'orphaned_tool_use', detail: `${block.name} ${block.id}` });
                    return undefined;
                }
                return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
            case 'tool_result':
                if (!uses.has(block.toolUseId)) {
                    manifest.filters.push({ kind: 'orphaned_tool_result', detail: `${block.name} ${block.toolUseId}` });
                    return undefined;
                }
                return this.toolResultBlock(block, imagelessAgent, manifest);
            case 'image':
            case 'attachment': {
                const loaded = await this.loader.load(block.ref);
                if (!loaded.ok) {
                    manifest.filters.push({ kind: 'failed_load', detail: `${block.ref.name} (${loaded.reason})` });
                    return { type: 'text', text: `[attachment unavailable: ${block.ref.name}]` };
                }
                return loaded.kind === 'image'
                    ? { type: 'image', media_type: loaded.mediaType, data: loaded.data }
                    : { type: 'text', text: `Attached file ${block.ref.name}:\n\`\`\`\n${loaded.text}\n\`\`\`` };
            }
            case 'skill_invocation':
                return { type: 'text', text: `<skill name="${block.name}">\n${block.body}\n</skill>` };
            case 'agent_tool_call':
                // An external agent ran it itself: a model taking the chat over learns what was done, as text.
                return { type: 'text', text: describeAgentToolCall(block.agent, block.call) };
            case 'agent_plan':
                return { type: 'text', text: describeAgentPlan(block.agent, block.entries) };
            case 'file_edit':
            case 'completion':
                // A UI record and the completion task: neither is conversation the model reads as messages.
                return undefined;
        }
    }

    /**
     * The working set goes once, at the end of the message where it last changed (a tool
     * result or a user message): near the work, outside the stable system prefix, and the
     * same from request to request until something in it changes.
     */
    private placeWorkingSet(messages: Sized[], indexOf: readonly number[], working: ReturnType<typeof workingSetOf>, manifest: ContextManifest, estimate: (chars: number) => number): number | undefined {
        if (!working.text) {
            return undefined;
        }
        let at = -1;
        for (let index = working.changedAt; index >= 0 && at < 0; index--) {
            at = indexOf[index];
        }
        if (at < 0 || messages[at].message.role !== 'user') {
            return undefined;
        }
        messages[at] = measureMessage({ role: 'user', content: [...messages[at].message.content, { type: 'text', text: working.text }] });
        manifest.sections.push({ name: 'working set', tokens: estimate(working.text.length), placement: `message ${at + 1} of ${messages.length}` });
        return at;
    }

    /**
     * Pinned blocks go at the front of the turn's typed user message (the last user message
     * without tool results); failing that, after the leading tool results of the last user
     * message; failing that, in a synthetic user message. Returns the turn's message.
     */
    private placePinned(messages: Sized[], pinned: readonly PinnedMaterialization[], manifest: ContextManifest, estimate: (chars: number) => number): Sized | undefined {
        const blocks: CtxBlock[] = pinned.map(pin => ({ type: 'text', text: `${pin.label} (content as of this turn):\n${pin.text}` }));
        for (const pin of pinned) {
            manifest.pinned.push({ id: pin.id, label: pin.label, tokens: estimate(pin.text.length + pin.label.length) });
        }
        let index = findLastIndex(messages, sized => sized.message.role === 'user' && !sized.message.content.some(block => block.type === 'tool_result'));
        if (index < 0) {
            index = findLastIndex(messages, sized => sized.message.role === 'user');
        }
        if (index < 0) {
            if (blocks.length === 0) {
                return undefined;
            }
            messages.push(measureMessage({ role: 'user', content: blocks }));
            return messages[messages.length - 1];
        }
        if (blocks.length > 0) {
            const content = messages[index].message.content;
            const leadingResults = content.findIndex(block => block.type !== 'tool_result');
            const at = leadingResults < 0 ? content.length : leadingResults;
            messages[index] = measureMessage({ role: 'user', content: [...content.slice(0, at), ...blocks, ...content.slice(at)] });
        }
        return messages[index];
    }

    /**
     * A tool result as the templates read it: its text (which describes every image the tool returned,
     * for templates and agents without images) and, for an agent that takes images, the images
     * themselves: fresh bytes, or the chat's saved files read again and held to the same rules
     * (a file changed since it was written is no image the tool returned).
     */
    private async toolResultBlock(block: Extract<HistoryBlock, { type: 'tool_result' }>, imagelessAgent: string | undefined, manifest: ContextManifest): Promise<CtxBlock> {
        const result: CtxBlock = { type: 'tool_result', tool_use_id: block.toolUseId, name: block.name, content: block.content, is_error: block.isError };
        if (!block.images?.length) {
            return result;
        }
        if (imagelessAgent !== undefined) {
            manifest.filters.push({ kind: 'image_not_taken', detail: `${block.images.length} image(s) from ${block.name} (${imagelessAgent} takes no images)` });
            return result;
        }
        const images: ToolResultImage[] = [];
        for (const image of block.images) {
            if ('data' in image) {
                images.push(image);
            } else if ('ref' in image) {
                const loaded = await this.loader.load(image.ref);
                if (loaded.ok && loaded.kind === 'image') {
                    images.push({ mediaType: image.mediaType, data: loaded.data });
                } else {
                    manifest.filters.push({ kind: 'failed_load', detail: `an image of ${block.name} (${loaded.ok ? 'not an image' : loaded.reason})` });
                }
            }
        }
        const kept = keptToolImages(images);
        if (kept.length < images.length) {
            manifest.filters.push({ kind: 'failed_load', detail: `${images.length - kept.length} image(s) of ${block.name} no longer of their type or within the limits` });
        }
        return kept.length > 0 ? { ...result, images: kept.map(image => ({ media_type: image.mediaType, data: image.data })) } : result;
    }
}

/** An image the agent cannot take, as it goes instead: a line that says so, counted like any text. */
function imagePlaceholder(name: string, agent: string, manifest: ContextManifest): CtxBlock {
    manifest.filters.push({ kind: 'image_not_taken', detail: `${name} (${agent} takes no images)` });
    return { type: 'text', text: `[image ${name} not sent: ${agent} takes no images]` };
}

/** Why this turn cannot go to an agent that takes no images: its message (the last one the user wrote) attaches some. */
function imagesRefused(history: readonly HistoryMessage[], agent: string): string | undefined {
    const turn = findLastIndex(history, message => message.role === 'user' && message.blocks.some(block => block.type !== 'tool_result'));
    const names = turn < 0 ? [] : history[turn].blocks.flatMap(block => block.type === 'image' ? [`"${block.ref.name}"`] : []);
    if (names.length === 0) {
        return undefined;
    }
    return `${agent} takes no images (its request template sends text only, or its file says images = false), so ${names.join(', ')} cannot go with this message. `
        + 'Pick an agent that takes images in the chat\'s agent picker, or remove the image.';
}

function nextEditChars(input: NextEditContext | undefined): number {
    return input ? input.events.length + (input.other_events ?? []).reduce((sum, event) => sum + event.path.length + event.diff.length, 0) + input.before.length + input.after.length + input.region_before_cursor.length + input.region_after_cursor.length : 0;
}
