import * as assert from 'node:assert/strict';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { ContentLoader } from '../context/content-loader';
import { ContextAssembler } from '../context/context-assembler';
import { TokenEstimator } from '../context/token-estimator';
import { sumCosts, usagesOf } from '../context/usage-totals';
import { WIRE_PROTOCOLS } from '../wire/wire-protocols';
import { Session, SessionAgent, SessionServices } from './session';
import { SessionEvent } from './session-events';

const chunk = (body: object) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', ...body })}\n\n`;
const usage = (prompt: number, completion: number, cached: number) =>
    chunk({ choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, prompt_tokens_details: { cached_tokens: cached } } });
/** Round 1 and 2 ask for read_file; round 3 answers. Each reports its own usage (OpenAI counts the cached part inside prompt_tokens). */
const ROUNDS = [
    chunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call-1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] }, finish_reason: 'tool_calls' }] })
    + usage(1_000, 50, 0) + 'data: [DONE]\n\n',
    chunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call-2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.ts"}' } }] }, finish_reason: 'tool_calls' }] })
    + usage(1_200, 40, 1_000) + 'data: [DONE]\n\n',
    chunk({ choices: [{ index: 0, delta: { content: 'Both files export a constant.' }, finish_reason: 'stop' }] })
    + usage(1_400, 100, 1_200) + 'data: [DONE]\n\n'
];
const READ_FILE = { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } };

describe('Session usage: every request of a turn is counted and priced when it arrives', () => {
    let server: Server;
    let url: string;
    let served = 0;
    before(async () => {
        server = createServer((request, response) => {
            request.resume();
            response.writeHead(200, { 'content-type': 'text/event-stream' });
            response.end(ROUNDS[served++ % ROUNDS.length]);
        });
        await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
        url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
    });
    after(async () => {
        server.closeAllConnections();
        await new Promise(resolve => server.close(resolve));
    });
    beforeEach(() => { served = 0; });

    const agent = (overrides: Partial<SessionAgent> = {}): SessionAgent => ({
        name: 'priced', model: 'm', protocol: WIRE_PROTOCOLS['openai-chat'], url, headers: {}, secrets: [], contextWindow: 32_000, maxOutputTokens: 1_000,
        systemPrompt: 'You help.', renderBody: () => ({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }], tools: [] }),
        ...overrides
    });
    const services = (): SessionServices => {
        const estimator = new TokenEstimator();
        return { assembler: new ContextAssembler(estimator, new ContentLoader()), estimator, tools: { execute: async () => ({ content: 'export const a = 1;' }) } };
    };
    const run = async (session: Session): Promise<void> => {
        await session.send([{ type: 'text', text: 'What do a.ts and b.ts export?' }], { tools: [READ_FILE] });
        while (session.busy) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
    };

    it('records each request of a tool loop on the answer it produced, priced with cached input at its own rate', async () => {
        const events: SessionEvent[] = [];
        const session = new Session('s', agent({ pricing: { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3, currency: 'USD' } }), services(), batch => events.push(...batch));
        await run(session);
        assert.deepEqual(events.filter(event => event.type === 'Finished').length, 1);
        const answers = session.history.filter(message => message.role === 'assistant');
        assert.equal(answers.length, 3);
        assert.deepEqual(answers.map(answer => answer.usage && { ...answer.usage, cost: answer.usage.cost && { ...answer.usage.cost, amount: Number(answer.usage.cost.amount.toFixed(8)) } }), [
            // 1000 uncached × 3 + 50 × 15, per million
            { inputTokens: 1_000, outputTokens: 50, cachedTokens: 0, cost: { amount: 0.00375, currency: 'USD' } },
            // 200 × 3 + 1000 × 0.3 + 40 × 15
            { inputTokens: 1_200, outputTokens: 40, cachedTokens: 1_000, cost: { amount: 0.0015, currency: 'USD' } },
            // 200 × 3 + 1200 × 0.3 + 100 × 15
            { inputTokens: 1_400, outputTokens: 100, cachedTokens: 1_200, cost: { amount: 0.00246, currency: 'USD' } }
        ]);
        const turn = sumCosts(usagesOf(session.history));
        assert.deepEqual(turn && { ...turn, amounts: turn.amounts.map(cost => ({ ...cost, amount: Number(cost.amount.toFixed(8)) })) },
            { amounts: [{ currency: 'USD', amount: 0.00771 }], unpriced: 0 });
    });

    it('tells each request\'s usage with its round and cost, so a window sums the turn as it streams', async () => {
        const events: SessionEvent[] = [];
        const session = new Session('s', agent({ pricing: { input_per_mtok: 1, output_per_mtok: 2 } }), services(), batch => events.push(...batch));
        await run(session);
        const told = events.flatMap(event => event.type === 'Usage' ? [{ round: event.round, input: event.inputTokens, cost: event.cost && { ...event.cost, amount: Number(event.cost.amount.toFixed(8)) } }] : []);
        assert.deepEqual(told, [
            { round: 0, input: 1_000, cost: { amount: 0.0011, currency: 'USD' } },
            // No cached price: cached input costs the input price.
            { round: 1, input: 1_200, cost: { amount: 0.00128, currency: 'USD' } },
            { round: 2, input: 1_400, cost: { amount: 0.0016, currency: 'USD' } }
        ]);
    });

    it('a model without a price records tokens and no cost — no figure, never a guess', async () => {
        const events: SessionEvent[] = [];
        const session = new Session('s', agent(), services(), batch => events.push(...batch));
        await run(session);
        const usages = usagesOf(session.history);
        assert.equal(usages.length, 3);
        assert.ok(usages.every(recorded => recorded.cost === undefined));
        assert.ok(events.every(event => event.type !== 'Usage' || event.cost === undefined));
        assert.equal(sumCosts(usages), undefined);
    });
});
