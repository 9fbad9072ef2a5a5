/**
 * The values the browser shares with core, in the one entry of `@qodeassist/core` the browser may
 * load (`@qodeassist/core/protocol`): it imports nothing, so it runs anywhere. Core and the Theia
 * adapter both take these from here, so the two sides cannot drift apart (docs/ARCHITECTURE.md §2).
 */

/** The prefix of an external (ACP) agent's name in an agent choice and in the send options: `acp:claude-code`. */
export const ACP_AGENT_PREFIX = 'acp:';

/**
 * The key a chat keeps a file edit under: the tool call's id, numbered from the second result with
 * that id on, since some providers reuse ids across rounds (Ollama's `call_0`). `earlierResults`
 * counts the tool results with that id already in the history.
 */
export function editIdOf(callId: string, earlierResults: number): string {
    return earlierResults === 0 ? callId : `${callId}#${earlierResults + 1}`;
}

/** Largest attachment a chat takes, per kind (files, MCP resources, pasted images); larger ones are refused saying so. */
export const ATTACHMENT_LIMITS = { imageBytes: 5 * 1024 * 1024, textBytes: 512 * 1024 } as const;

/** An amount of money in one currency. */
export interface UsageCost {
    amount: number;
    currency: string;
}

/** What a set of requests cost: one sum per currency, and how many requests had no price (their cost is not in the sums). */
export interface CostTotal {
    amounts: UsageCost[];
    /** Requests whose model had no price when they were received. */
    unpriced: number;
}

/** Sums per currency (a chat may have used agents priced in different currencies); undefined when no request had a price — no figure, never a guess. */
export function sumCosts<Request extends { cost?: UsageCost }>(requests: readonly Request[]): CostTotal | undefined {
    const sums = new Map<string, number>();
    let unpriced = 0;
    for (const request of requests) {
        if (request.cost) {
            sums.set(request.cost.currency, (sums.get(request.cost.currency) ?? 0) + request.cost.amount);
        } else {
            unpriced++;
        }
    }
    return sums.size === 0 ? undefined : { amounts: [...sums].map(([currency, amount]) => ({ currency, amount })), unpriced };
}

/** A chat's title before anything was said. */
export const NEW_CHAT_TITLE = 'New chat';
/** How long a title taken from the first message may be. */
export const CHAT_TITLE_LENGTH = 60;

/** The title a chat gets from its first user message's text (spaces collapsed, cut with an ellipsis); undefined for no text. */
export function titleFromText(text: string | undefined): string | undefined {
    const line = text?.trim().replace(/\s+/g, ' ');
    if (!line) {
        return undefined;
    }
    return line.length > CHAT_TITLE_LENGTH ? `${line.slice(0, CHAT_TITLE_LENGTH - 1)}…` : line;
}

/** `/name rest of the message`: a skill's name and what follows it, or undefined when the message is not shaped so. */
export function skillInvocation(message: string): { name: string; rest: string } | undefined {
    const match = /^\/([a-z0-9-]{1,64})(?:\s+([\s\S]*))?$/.exec(message.trim());
    return match ? { name: match[1], rest: match[2]?.trim() ?? '' } : undefined;
}

/** The todo list as a conversation's `todo` calls left it, in order: each `add` a step, each `complete` ticks one. */
export function todoChecklist(calls: Iterable<{ name: string; input: unknown }>): string {
    const items: Array<{ text: string; done: boolean }> = [];
    for (const call of calls) {
        if (call.name !== 'todo' || !call.input || typeof call.input !== 'object') {
            continue;
        }
        const input = call.input as { action?: unknown; text?: unknown; id?: unknown };
        if (input.action === 'add' && typeof input.text === 'string') {
            items.push({ text: input.text, done: false });
        } else if (input.action === 'complete' && typeof input.id === 'number' && items[input.id - 1]) {
            items[input.id - 1].done = true;
        }
    }
    return items.map((item, index) => `${item.done ? '[x]' : '[ ]'} ${index + 1}. ${item.text}`).join('\n');
}
