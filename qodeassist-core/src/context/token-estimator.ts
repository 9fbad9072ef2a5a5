/** What a request is made of, as far as token counting goes. */
export interface EstimateInput {
    chars: number;
    images: number;
}

/** Tokens an image costs before the provider tells us (most APIs land near this for a screenshot). */
export const IMAGE_TOKENS = 800;
// Measured against o200k_base on code, prose and templates (BENCHMARKS.md); calibration refines it per model.
const DEFAULT_CHARS_PER_TOKEN = 4.0;
/** Weight of the newest observation in the running ratio. */
const SMOOTHING = 0.3;

/**
 * Chars-per-token per provider/model, calibrated from Usage events. One instance is
 * shared by the budget and the UI's token counter, so both always agree.
 */
export class TokenEstimator {
    private readonly ratios = new Map<string, number>();

    constructor(private readonly defaultRatio = DEFAULT_CHARS_PER_TOKEN) { }

    ratio(key: string): number {
        return this.ratios.get(key) ?? this.defaultRatio;
    }

    estimateText(text: string, key = ''): number {
        return Math.ceil(text.length / this.ratio(key));
    }

    estimate(input: EstimateInput, key = ''): number {
        return Math.ceil(input.chars / this.ratio(key)) + input.images * IMAGE_TOKENS;
    }

    /** After a response: the request had `input` and the provider counted `inputTokens`. Outliers are clamped. */
    calibrate(key: string, input: EstimateInput, inputTokens: number): void {
        const textTokens = inputTokens - input.images * IMAGE_TOKENS;
        if (input.chars < 200 || textTokens <= 0) {
            return;
        }
        const observed = Math.min(8, Math.max(1.5, input.chars / textTokens));
        const current = this.ratios.get(key);
        this.ratios.set(key, current === undefined ? observed : current + SMOOTHING * (observed - current));
    }
}
