/** How the benchmark's typist spaces its keys: the gap (ms) before key `index` of a burst. */
export interface TypistRhythm {
    name: string;
    /** For file names. */
    slug: string;
    gap: (index: number) => number;
    /** How the gaps are drawn, for the BENCHMARKS.md text. */
    description: string;
}

/** A steady typist: every key `ms` after the one before (Playwright's per-key delay). */
export function steadyRhythm(ms: number): TypistRhythm {
    return { name: `${ms} ms a key`, slug: `${ms}ms`, gap: () => ms, description: `every key ${ms} ms after the last` };
}

/**
 * A human-like rhythm: log-normal gaps, seeded, so every run and every app types the very same keys.
 *
 * No recording of real keystrokes ships here, so the distribution is written down instead. Dhakal, Feit,
 * Kristensson and Oulasvirta, "Observations on Typing from 136 Million Keystrokes" (CHI 2018,
 * doi:10.1145/3173574.3174220), report a mean inter-key interval of about 239 ms across 168,000 typists
 * (≈ 52 words a minute); within one typist, inter-key intervals are right-skewed and usually fitted by a
 * log-normal (or ex-Gaussian) distribution. The mean is the study's; the spread σ = 0.5 (a coefficient of variation
 * of ≈ 0.53) is this benchmark's assumption for one ordinary typist writing code. Median = mean / e^(σ²/2) ≈ 211 ms.
 * Gaps are kept within 30–1,000 ms: longer is a pause, which the script makes on its own.
 */
export const HUMAN_RHYTHM_PARAMETERS: HumanRhythmParameters = { meanMs: 239, sigma: 0.5, seed: 38, minMs: 30, maxMs: 1_000 };

export interface HumanRhythmParameters {
    meanMs: number;
    sigma: number;
    seed: number;
    minMs: number;
    maxMs: number;
}

export function humanRhythm(parameters = HUMAN_RHYTHM_PARAMETERS): TypistRhythm {
    const median = parameters.meanMs / Math.exp(parameters.sigma ** 2 / 2);
    const uniform = mulberry32(parameters.seed);
    const drawn: number[] = [];
    return {
        name: 'human-like (log-normal)',
        slug: 'human',
        gap: index => {
            while (drawn.length <= index) {
                // Box–Muller: one standard normal from two uniforms (1 - u keeps the logarithm finite).
                const z = Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
                drawn.push(Math.round(Math.min(parameters.maxMs, Math.max(parameters.minMs, median * Math.exp(parameters.sigma * z)))));
            }
            return drawn[index];
        },
        description: `log-normal gaps, median ${Math.round(median)} ms, σ ${parameters.sigma} (mean ≈ ${parameters.meanMs} ms, Dhakal et al., CHI 2018), `
            + `within ${parameters.minMs}–${parameters.maxMs} ms, seed ${parameters.seed}`
    };
}

/** The rhythms `npm run bench:completion` types the script at (issue #38): three steady speeds and a human-like one. */
export const BENCH_RHYTHMS: readonly TypistRhythm[] = [steadyRhythm(35), steadyRhythm(80), steadyRhythm(150), humanRhythm()];

/** A small seeded generator (mulberry32): uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let x = Math.imul(state ^ (state >>> 15), 1 | state);
        x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
        return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
    };
}
