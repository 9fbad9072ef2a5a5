import { z } from 'zod';

/** Currency of a price that names none. */
export const DEFAULT_CURRENCY = 'USD';

const price = (key: string) => z.number({ error: `[pricing] ${key} must be a price per million tokens: a number of 0 or more, e.g. ${key} = 3.0` })
    .min(0, { error: `[pricing] ${key} must be a price per million tokens: a number of 0 or more, e.g. ${key} = 3.0` });

/**
 * What one model costs, per million tokens: `[pricing."<model>"]` in a provider or agent file.
 * Cached input is input the provider read from its prompt cache (it reports it as part of the input).
 */
export const ModelPricingSchema = z.strictObject({
    input_per_mtok: price('input_per_mtok'),
    output_per_mtok: price('output_per_mtok'),
    /** Default: input_per_mtok (what cached input costs when the provider gives it no discount). */
    cached_input_per_mtok: price('cached_input_per_mtok').optional(),
    currency: z.string({ error: '[pricing] currency must be a three-letter currency code in capitals, e.g. currency = "USD"' })
        .regex(/^[A-Z]{3}$/, { error: '[pricing] currency must be a three-letter currency code in capitals, e.g. currency = "USD"' }).optional()
}, { error: 'a [pricing] entry is a table named by the model it prices, e.g. [pricing."gpt-4.1"] with input_per_mtok = 2.0 and output_per_mtok = 8.0' });

export type ModelPricing = z.infer<typeof ModelPricingSchema>;

/** `[pricing]`: prices by model name, as the provider's API calls the model. */
export const PricingTableSchema = z.record(z.string().min(1), ModelPricingSchema);

export type PricingTable = z.infer<typeof PricingTableSchema>;

/** What a request cost, priced when its usage arrived (the price then). */
export interface UsageCost {
    amount: number;
    currency: string;
}

/** A request's tokens as providers report them: input includes the cached part. */
export interface PricedTokens {
    inputTokens: number;
    outputTokens: number;
    cachedTokens?: number;
}

/**
 * The price of a model: the agent's entry for it wins over its provider's. No entry, no price —
 * a figure is never made up from another model's or a default price.
 */
export function pricingFor(model: string, agent: PricingTable | undefined, provider: PricingTable | undefined): ModelPricing | undefined {
    return own(agent, model) ?? own(provider, model);
}

function own(table: PricingTable | undefined, model: string): ModelPricing | undefined {
    return table && Object.prototype.hasOwnProperty.call(table, model) ? table[model] : undefined;
}

/** One request's cost: uncached input, cached input (at its own price, else the input price) and output (reasoning included, as providers count it). */
export function costOf(tokens: PricedTokens, pricing: ModelPricing): UsageCost {
    const cached = Math.min(Math.max(tokens.cachedTokens ?? 0, 0), tokens.inputTokens);
    const uncached = tokens.inputTokens - cached;
    const amount = (uncached * pricing.input_per_mtok + cached * (pricing.cached_input_per_mtok ?? pricing.input_per_mtok)
        + tokens.outputTokens * pricing.output_per_mtok) / 1_000_000;
    return { amount, currency: pricing.currency ?? DEFAULT_CURRENCY };
}
