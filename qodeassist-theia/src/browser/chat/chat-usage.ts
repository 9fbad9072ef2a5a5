import { CostTotal, sumCosts, UsageCost } from '@qodeassist/core/protocol';

export { sumCosts };

/** One request's usage as the chat shows it: tokens as the provider reported them (input includes the cached part), and its cost when its model had a price. */
export interface RequestUsage {
    inputTokens: number;
    outputTokens: number;
    cachedTokens?: number;
    reasoningTokens?: number;
    cost?: UsageCost;
}

/** A turn's usage: every request of its tool loop added up; `cost` only when at least one had a price. */
export interface UsageSum {
    requests: number;
    inputTokens: number;
    outputTokens: number;
    cachedTokens: number;
    reasoningTokens: number;
    cost?: CostTotal;
}

/** One request's usage from a `Usage` event or a saved message (nothing else of them). */
export function requestUsageOf(usage: RequestUsage): RequestUsage {
    return {
        inputTokens: usage.inputTokens, outputTokens: usage.outputTokens,
        ...(usage.cachedTokens !== undefined ? { cachedTokens: usage.cachedTokens } : {}),
        ...(usage.reasoningTokens !== undefined ? { reasoningTokens: usage.reasoningTokens } : {}),
        ...(usage.cost ? { cost: { amount: usage.cost.amount, currency: usage.cost.currency } } : {})
    };
}

export function sumUsage(requests: readonly RequestUsage[]): UsageSum {
    const cost = sumCosts(requests);
    return {
        requests: requests.length,
        inputTokens: requests.reduce((sum, request) => sum + request.inputTokens, 0),
        outputTokens: requests.reduce((sum, request) => sum + request.outputTokens, 0),
        cachedTokens: requests.reduce((sum, request) => sum + (request.cachedTokens ?? 0), 0),
        reasoningTokens: requests.reduce((sum, request) => sum + (request.reasoningTokens ?? 0), 0),
        ...(cost ? { cost } : {})
    };
}

/** An amount of money as the user's locale writes it; small amounts keep four decimals, and what rounds to nothing says "<". */
export function formatAmount(cost: UsageCost, locale?: string): string {
    const decimals = cost.amount > 0 && cost.amount < 1 ? 4 : 2;
    const format = (amount: number) => new Intl.NumberFormat(locale, { style: 'currency', currency: cost.currency, minimumFractionDigits: 2, maximumFractionDigits: decimals }).format(amount);
    const smallest = 10 ** -decimals;
    return cost.amount > 0 && cost.amount < smallest ? `< ${format(smallest)}` : format(cost.amount);
}

/** A total: its currencies joined, and how many requests had no price (their cost is not in it). */
export function formatCost(total: CostTotal, locale?: string): string {
    const amounts = total.amounts.map(amount => formatAmount(amount, locale)).join(' + ');
    return total.unpriced > 0 ? `${amounts} (${total.unpriced} request${total.unpriced > 1 ? 's' : ''} without a price)` : amounts;
}

function tokensOf(usage: RequestUsage | UsageSum): string[] {
    return [
        `${usage.inputTokens} in`, usage.cachedTokens ? `${usage.cachedTokens} cached` : '', `${usage.outputTokens} out`,
        usage.reasoningTokens ? `${usage.reasoningTokens} reasoning` : ''
    ].filter(Boolean);
}

/** The line under an answer: the whole turn, every request of its tool rounds added up. */
export function usageLine(sum: UsageSum, locale?: string): string {
    return [
        ...(sum.requests > 1 ? [`${sum.requests} requests`] : []), ...tokensOf(sum), ...(sum.cost ? [formatCost(sum.cost, locale)] : [])
    ].join(' · ');
}

/** Each request of a turn on a line of its own, for the usage line's tooltip. */
export function requestLines(requests: readonly RequestUsage[], locale?: string): string[] {
    return requests.length < 2 ? [] : requests.map((request, index) =>
        `Request ${index + 1}: ${[...tokensOf(request), ...(request.cost ? [formatAmount(request.cost, locale)] : [])].join(' · ')}`);
}

/** What the token counter's popover says a chat cost: its last turn and all of it, from the answers it shows. */
export interface ChatCosts {
    turn?: CostTotal;
    chat?: CostTotal;
    /** Requests were made but none had a price: the popover says how to get a figure instead of showing one. */
    unpriced: boolean;
}

export function chatCosts(answers: ReadonlyArray<{ role: string; requests?: readonly RequestUsage[] }>): ChatCosts {
    const withUsage = answers.filter(answer => answer.role === 'assistant' && answer.requests && answer.requests.length > 0);
    const all = withUsage.flatMap(answer => answer.requests ?? []);
    const last = withUsage[withUsage.length - 1]?.requests ?? [];
    const chat = sumCosts(all);
    return { ...(chat ? { turn: sumCosts(last), chat } : {}), unpriced: all.length > 0 && !chat };
}
