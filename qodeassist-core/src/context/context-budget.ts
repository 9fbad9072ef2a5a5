import { CtxBlock, CtxMessage } from '../prompt/template-context';
import { ContextManifest } from './context-manifest';
import { EstimateInput, IMAGE_TOKENS } from './token-estimator';

/*
 * The context budget: how a serialized history is measured, and what the assembler leaves out,
 * stage by stage, until the request fits the agent's window.
 */

/** A serialized message with what it costs: characters, and images (counted apart). */
export interface Sized {
    message: CtxMessage;
    chars: number;
    images: number;
}

/** The evidence the budget never elides (the latest build and problems, the last writes) and what newer evidence replaced. */
export interface BudgetEvidence {
    protectedIds: ReadonlySet<string>;
    superseded: ReadonlySet<string>;
}

type Estimate = (chars: number, images?: number) => number;

/** Tool results that are cheap to get again: elided before others of their age. */
const LOW_SIGNAL: ReadonlySet<string> = new Set(['read_file', 'list_project_files', 'find_file', 'search_project', 'todo', 'load_skill']);

export function measureMessage(message: CtxMessage): Sized {
    let chars = 0;
    let images = 0;
    for (const block of message.content) {
        switch (block.type) {
            case 'text': chars += block.text.length; break;
            case 'thinking': chars += block.thinking.length; break;
            case 'redacted_thinking': chars += block.data.length; break;
            case 'tool_use': chars += block.name.length + JSON.stringify(block.input).length; break;
            case 'tool_result': chars += block.content.length; images += block.images?.length ?? 0; break;
            case 'image': images++; break;
        }
    }
    return { message, chars, images };
}

/** What the messages and the fixed part (system prompt, tools, completion) add up to. */
export function measureAll(messages: readonly Sized[], fixedChars: number): EstimateInput {
    let chars = fixedChars;
    let images = 0;
    for (const sized of messages) {
        chars += sized.chars;
        images += sized.images;
    }
    return { chars, images };
}

export function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
    for (let index = items.length - 1; index >= 0; index--) {
        if (predicate(items[index])) {
            return index;
        }
    }
    return -1;
}

/** A tool result's text replaced; the images it returned go with its text (an elided result shows none). */
function replacedResult(block: Extract<CtxBlock, { type: 'tool_result' }>, content: string): CtxBlock {
    return { type: 'tool_result', tool_use_id: block.tool_use_id, name: block.name, content, is_error: block.is_error };
}

/**
 * Stage 0, always: superseded builds and problem lists. Then, until it fits — stage 1: tool
 * results outside the last rounds, old reads and searches first, then the rest, oldest
 * first; never the latest build, the latest problems or the last writes. Stage 2: old
 * attachments and images (those a tool returned included). Stage 3: whole old tool rounds.
 */
export function applyBudget(messages: Sized[], fixedChars: number, keepRecentToolRounds: number | undefined, manifest: ContextManifest, estimate: Estimate, evidence: BudgetEvidence): void {
    // A running total, adjusted per replaced message: elision stays linear in the history length.
    const running = measureAll(messages, fixedChars);
    const total = () => estimate(running.chars, running.images);
    const replace = (index: number, content: CtxBlock[]) => {
        const before = messages[index];
        const after = measureMessage({ role: before.message.role, content });
        running.chars += after.chars - before.chars;
        running.images += after.images - before.images;
        messages[index] = after;
    };
    // Stage 0, always: a build or problem list that a newer one replaced is stale evidence, not context.
    messages.forEach((sized, index) => {
        if (!sized.message.content.some(block => block.type === 'tool_result' && evidence.superseded.has(block.tool_use_id))) {
            return;
        }
        replace(index, sized.message.content.map((block): CtxBlock => {
            if (block.type !== 'tool_result' || !evidence.superseded.has(block.tool_use_id)) {
                return block;
            }
            manifest.elisions.push({ kind: 'tool_result', detail: `${block.name} ${block.tool_use_id}`, tokens: estimate(block.content.length), reason: 'superseded' });
            return replacedResult(block, `[superseded by a later ${block.name === 'build_project' ? 'build' : 'problem list'}: see the working set]`);
        }));
    });
    if (total() <= manifest.limit) {
        return;
    }
    const keep = keepRecentToolRounds ?? 2;
    const rounds = messages.map((sized, index) => ({ sized, index })).filter(({ sized }) => sized.message.content.some(block => block.type === 'tool_result'));
    const candidates: Array<{ index: number; id: string; reason: 'low-signal' | 'old' }> = [];
    for (const { sized, index } of rounds.slice(0, Math.max(0, rounds.length - keep))) {
        for (const block of sized.message.content) {
            if (block.type === 'tool_result' && !evidence.protectedIds.has(block.tool_use_id) && !evidence.superseded.has(block.tool_use_id)) {
                const reason = LOW_SIGNAL.has(block.name) ? 'low-signal' : 'old';
                candidates.push({ index, id: block.tool_use_id, reason });
            }
        }
    }
    const rank = { 'low-signal': 0, old: 1 } as const;
    candidates.sort((a, b) => rank[a.reason] - rank[b.reason] || a.index - b.index);
    for (const candidate of candidates) {
        const content = messages[candidate.index].message.content.map((block): CtxBlock => {
            if (block.type !== 'tool_result' || block.tool_use_id !== candidate.id || block.content.startsWith('[tool result elided')) {
                return block;
            }
            const tokens = estimate(block.content.length, block.images?.length ?? 0);
            manifest.elisions.push({ kind: 'tool_result', detail: `${block.name} ${block.tool_use_id}`, tokens, reason: candidate.reason });
            return replacedResult(block, `[tool result elided (${candidate.reason}) — ${tokens} tokens]`);
        });
        replace(candidate.index, content);
        if (total() <= manifest.limit) {
            return;
        }
    }
    if (elideOldContent(messages, manifest, estimate, replace, () => total() <= manifest.limit)) {
        return;
    }
    dropOldRounds(messages, keep, evidence.protectedIds, manifest, estimate, () => total() <= manifest.limit, (chars, images) => {
        running.chars -= chars;
        running.images -= images;
    });
}

/** Stage 2: old attachments and images, a tool result's images among them, oldest first; never the last user message's. True once it fits. */
function elideOldContent(messages: Sized[], manifest: ContextManifest, estimate: Estimate, replace: (index: number, content: CtxBlock[]) => void, fits: () => boolean): boolean {
    const lastUser = findLastIndex(messages, sized => sized.message.role === 'user');
    for (let index = 0; index < messages.length; index++) {
        if (index === lastUser) {
            continue;
        }
        let changed = false;
        const content = messages[index].message.content.map((block): CtxBlock => {
            if (block.type === 'image') {
                changed = true;
                manifest.elisions.push({ kind: 'image', detail: block.media_type, tokens: IMAGE_TOKENS });
                return { type: 'text', text: '[image elided to fit the context]' };
            }
            if (block.type === 'tool_result' && block.images?.length) {
                changed = true;
                for (const image of block.images) {
                    manifest.elisions.push({ kind: 'image', detail: `${image.media_type} from ${block.name}`, tokens: IMAGE_TOKENS });
                }
                return replacedResult(block, `${block.content}\n[${block.images.length} image(s) the tool returned elided to fit the context]`);
            }
            if (block.type === 'text' && block.text.startsWith('Attached file ')) {
                changed = true;
                const name = block.text.slice('Attached file '.length, block.text.indexOf(':'));
                const tokens = estimate(block.text.length);
                manifest.elisions.push({ kind: 'attachment', detail: name, tokens });
                return { type: 'text', text: `[attachment elided to fit the context: ${name}, ~${tokens} tokens]` };
            }
            return block;
        });
        if (changed) {
            replace(index, content);
            if (fits()) {
                return true;
            }
        }
    }
    return false;
}

/**
 * Stage 3: whole old tool rounds — the call and its elided result — go, oldest first, never
 * one holding protected evidence or among the last rounds. What they did stays in the working
 * set. A round is only ever dropped whole, so the trace stays paired.
 */
function dropOldRounds(messages: Sized[], keep: number, protectedIds: ReadonlySet<string>, manifest: ContextManifest,
    estimate: Estimate, fits: () => boolean, removed: (chars: number, images: number) => void): void {
    const results = messages.map((sized, index) => ({ sized, index })).filter(({ sized }) => sized.message.role === 'user' && sized.message.content.some(block => block.type === 'tool_result'));
    const droppable = results.slice(0, Math.max(0, results.length - keep)).map(({ index }) => index).filter(index => {
        const call = messages[index - 1]?.message;
        const answer = messages[index].message;
        return call?.role === 'assistant' && call.content.every(block => block.type === 'tool_use')
            && answer.content.every(block => block.type === 'tool_result' && !protectedIds.has(block.tool_use_id));
    });
    const gone = new Set<number>();
    for (const index of droppable) {
        if (fits()) {
            break;
        }
        for (const at of [index - 1, index]) {
            gone.add(at);
            removed(messages[at].chars, messages[at].images);
        }
        const names = messages[index - 1].message.content.map(block => block.type === 'tool_use' ? block.name : '').join(', ');
        manifest.elisions.push({ kind: 'tool_round', detail: names, tokens: estimate(messages[index - 1].chars + messages[index].chars), reason: 'old' });
    }
    if (gone.size > 0) {
        messages.splice(0, messages.length, ...messages.filter((_, index) => !gone.has(index)));
    }
}
