import { CostTotal, sumCosts as sumRequestCosts } from '../protocol';
import { HistoryMessage, MessageUsage } from './conversation-history';

export type { CostTotal };

/** Sums per currency of the requests' costs; undefined when none had a price (the browser sums the same way, from the same code). */
export function sumCosts(usages: readonly MessageUsage[]): CostTotal | undefined {
    return sumRequestCosts(usages);
}

/** Every request a history recorded: each answer, tool rounds included, carries its own request's usage. */
export function usagesOf(history: readonly HistoryMessage[]): MessageUsage[] {
    return history.flatMap(message => message.usage ? [message.usage] : []);
}

/** What a chat cost so far; undefined when none of its requests had a price. */
export function chatCostOf(history: readonly HistoryMessage[]): CostTotal | undefined {
    return sumCosts(usagesOf(history));
}
