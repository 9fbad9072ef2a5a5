import { LongRunResult, runLongScenario } from '../session/long-run-scenario';

export interface LongRunMeasurement {
    reassembled: LongRunResult;
    replayed: LongRunResult;
}

/** The 50-round scripted run, once re-assembling every round and once replaying the first payload (the baseline). */
export async function measureLongRun(): Promise<LongRunMeasurement> {
    return { reassembled: await runLongScenario({ reassembleRounds: true }), replayed: await runLongScenario({ reassembleRounds: false }) };
}

export function longRunTable({ reassembled, replayed }: LongRunMeasurement): string {
    const tokens = (body: string) => Math.round(body.length / 4);
    const lines = [
        '| request | re-assembled: estimate (tokens) | body ÷ 4 | elided so far | repairs | working set | replayed: body ÷ 4 | re-assembled ÷ replayed |',
        '|---:|---:|---:|---:|---:|:---:|---:|---:|'
    ];
    for (const request of reassembled.requests) {
        if (request.round % 5 !== 0 && request.round !== reassembled.requests.length - 1) {
            continue;
        }
        const manifest = request.manifest!;
        const repairs = Object.values(manifest.repairs).reduce((sum, count) => sum + count, 0);
        const baseline = replayed.requests[request.round];
        lines.push(`| ${request.round} | ${manifest.estimate} | ${tokens(request.body)} | ${manifest.elisions.length} | ${repairs} | ${manifest.sections.some(section => section.name === 'working set') ? 'yes' : '—'} | ${baseline ? tokens(baseline.body) : '—'} | ${baseline ? `${(request.body.length / baseline.body.length).toFixed(2)}×` : '—'} |`);
    }
    const totalRepairs = reassembled.requests.reduce((sum, request) => sum + Object.values(request.manifest!.repairs).reduce((a, b) => a + b, 0), 0);
    const largest = Math.max(...reassembled.requests.map(request => request.manifest!.estimate));
    lines.push('', `Limit ${reassembled.limit} tokens (10,000-token window minus the 1,000-token reply). ${reassembled.requests.length} requests; largest estimate ${largest}; ${totalRepairs} tool-trace repairs in all. The replayed baseline ends at ~${tokens(replayed.requests.at(-1)!.body)} tokens, ${(replayed.requests.at(-1)!.body.length / 4 / replayed.limit).toFixed(1)}× its limit (a real provider would refuse it).`);
    return lines.join('\n');
}
