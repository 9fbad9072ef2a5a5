import { UsageCost } from '../config/pricing';
import { HistoryMessage, MessageUsage } from './conversation-history';

/** What a set of requests cost: one sum per currency, and how many requests had no price (their cost is not in the sums). */
export interface CostTotal {
    amounts: UsageCost[];
    /** Requests whose model had no price when they were received. */
    unpriced: number;
}

/** Sums per currency (a chat may have used agents priced in different currencies); undefined when no request had a price — no figure, never a guess. */
export function sumCosts(usages: readonly MessageUsage[]): CostTotal | undefined {
    const sums = new Map<string, number>();
    let unpriced = 0;
    for (const usage of usages) {
        if (usage.cost) {
            sums.set(usage.cost.currency, (sums.get(usage.cost.currency) ?? 0) + usage.cost.amount);
        } else {
            unpriced++;
        }
    }
    if (sums.size === 0) {
        return undefined;
    }
    return { amounts: [...sums].map(([currency, amount]) => ({ currency, amount })), unpriced };
}

/** Every request a history recorded: each answer, tool rounds included, carries its own request's usage. */
export function usagesOf(history: readonly HistoryMessage[]): MessageUsage[] {
    return history.flatMap(message => message.usage ? [message.usage] : []);
}

/** What a chat cost so far; undefined when none of its requests had a price. */
export function chatCostOf(history: readonly HistoryMessage[]): CostTotal | undefined {
    return sumCosts(usagesOf(history));
}
