import { TokenEstimator } from './token-estimator';

/** Open files, most relevant first, as long as they fit the token budget. */
export function filesWithinBudget<T extends { content: string }>(files: readonly T[], budget: number, estimator: TokenEstimator): T[] {
    const chosen: T[] = [];
    let used = 0;
    for (const file of files) {
        const cost = estimator.estimateText(file.content);
        if (used + cost > budget) {
            break;
        }
        chosen.push(file);
        used += cost;
    }
    return chosen;
}
