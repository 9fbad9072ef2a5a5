/** The middle value (the upper one of two for an even count), as every benchmark table reports it. */
export function median(values: readonly number[]): number {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
}

/** The smallest value with at least `p` of the values at or below it (nearest rank); NaN for none. */
export function percentile(values: readonly number[], p: number): number {
    if (values.length === 0) {
        return Number.NaN;
    }
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}
