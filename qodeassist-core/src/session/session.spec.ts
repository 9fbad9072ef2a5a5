import * as assert from 'node:assert/strict';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { ContentLoader } from '../context/content-loader';
import { ContextAssembler } from '../context/context-assembler';
import { TokenEstimator } from '../context/token-estimator';
import { ErrorInfo } from '../wire/error-info';
import { WIRE_PROTOCOLS } from '../wire/wire-protocols';
import { Session, SessionAgent, SessionServices } from './session';
import { SessionEvent } from './session-events';

const sse = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
/** An OpenAI Chat answer that asks for one tool call, every time. */
const TOOL_CALL_ANSWER = sse({ role: 'assistant', content: null })
    + sse({ tool_calls: [{ index: 0, id: 'call-1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] })
    + sse({}, 'tool_calls') + 'data: [DONE]\n\n';
const READ_FILE = { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } };

/** A provider on 127.0.0.1: asks for a tool every time, or sends one chunk and falls silent (ending itself after 3 s). */
class LocalProvider {
    private server: Server | undefined;
    behaviour: 'tool-calls' | 'silent' = 'tool-calls';
    requests = 0;

    async start(): Promise<string> {
        this.server = createServer((request, response) => {
            this.requests++;
            request.resume();
            response.writeHead(200, { 'content-type': 'text/event-stream' });
            if (this.behaviour === 'tool-calls') {
                response.end(TOOL_CALL_ANSWER);
                return;
            }
            response.write(sse({ role: 'assistant', content: 'Let me' }));
            const end = setTimeout(() => response.end(), 3_000);
            response.on('close', () => clearTimeout(end));
        });
        await new Promise<void>(resolve => this.server!.listen(0, '127.0.0.1', resolve));
        this.server.unref();
        return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/chat/completions`;
    }

    async stop(): Promise<void> {
        this.server?.closeAllConnections();
        await new Promise(resolve => this.server?.close(resolve));
    }
}

describe('Session limits: the agent\'s [limits] under the user\'s settings', () => {
    const provider = new LocalProvider();
    let url: string;
    before(async () => { url = await provider.start(); });
    after(() => provider.stop());
    beforeEach(() => { provider.requests = 0; });

    const agent = (overrides: Partial<SessionAgent> = {}): SessionAgent => ({
        name: 'mine', model: 'm', protocol: WIRE_PROTOCOLS['openai-chat'], url, headers: {}, secrets: [], contextWindow: 32_000, maxOutputTokens: 1_000,
        systemPrompt: 'You help.', file: '/home/me/.qodeassist/agents/mine.toml',
        renderBody: () => ({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
        ...overrides
    });
    const services = (overrides: Partial<SessionServices> = {}): SessionServices => {
        const estimator = new TokenEstimator();
        return { assembler: new ContextAssembler(estimator, new ContentLoader()), estimator, tools: { execute: async () => ({ content: 'export const a = 1;' }) }, ...overrides };
    };
    /** Sends one message and returns the request's terminal event. */
    const failure = async (session: Session, events: SessionEvent[], withTools: boolean): Promise<ErrorInfo> => {
        await session.send([{ type: 'text', text: 'go' }], withTools ? { tools: [READ_FILE] } : {});
        while (session.busy) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        const terminal = events.filter(event => ['Finished', 'Failed', 'Cancelled'].includes(event.type));
        assert.equal(terminal.length, 1);
        assert.equal(terminal[0].type, 'Failed', JSON.stringify(terminal[0]));
        return (terminal[0] as { error: ErrorInfo }).error;
    };

    it('the tool round limit from the agent file stops the loop and names the file and the setting', async () => {
        provider.behaviour = 'tool-calls';
        const events: SessionEvent[] = [];
        const session = new Session('s', agent({ limits: { maxToolRounds: 2 } }), services(), batch => events.push(...batch));
        const error = await failure(session, events, true);
        assert.deepEqual(error, {
            category: 'Tool',
            limit: 'maxToolRounds',
            message: 'The model kept calling tools for 2 rounds (the max_tool_rounds limit), so the request was stopped. Ask for a smaller step, '
                + 'or raise [limits] max_tool_rounds in the agent file /home/me/.qodeassist/agents/mine.toml or the setting qodeassist.limits.maxToolRounds.'
        });
        assert.equal(provider.requests, 3, 'the first request and two continuations');
    });

    it('a setting overrides the agent\'s tool round limit, read at each send, and the error names only the setting', async () => {
        provider.behaviour = 'tool-calls';
        const events: SessionEvent[] = [];
        let rounds = 1;
        const session = new Session('s', agent({ limits: { maxToolRounds: 5 } }), services({ limits: () => ({ maxToolRounds: rounds }) }), batch => events.push(...batch));
        const first = await failure(session, events, true);
        assert.match(first.message, /for 1 rounds .* raise the setting qodeassist\.limits\.maxToolRounds \(it overrides \[limits\] max_tool_rounds of the agent file\)\.$/);
        assert.equal(provider.requests, 2);

        rounds = 0;
        events.length = 0;
        provider.requests = 0;
        const second = await failure(session, events, true);
        assert.match(second.message, /for 5 rounds/, 'a setting of 0 leaves the agent\'s value');
        assert.equal(provider.requests, 6);
    });

    it('the host\'s maxToolRounds still applies when neither the agent nor a setting sets one', async () => {
        provider.behaviour = 'tool-calls';
        const events: SessionEvent[] = [];
        const session = new Session('s', agent(), services({ maxToolRounds: 1 }), batch => events.push(...batch));
        const error = await failure(session, events, true);
        assert.match(error.message, /for 1 rounds/);
        assert.equal(provider.requests, 2);
    });

    it('the idle limit from a setting ends a silent answer, and the error names the setting', async () => {
        provider.behaviour = 'silent';
        const events: SessionEvent[] = [];
        const session = new Session('s', agent({ limits: { idleSeconds: 300 } }), services({ limits: () => ({ idleSeconds: 0.2 }) }), batch => events.push(...batch));
        const error = await failure(session, events, false);
        assert.deepEqual(error, {
            category: 'Network',
            message: 'The provider stopped sending for 0.2 s in the middle of an answer (the idle limit). Try again; if the model is only slow, '
                + 'raise the setting qodeassist.limits.idleSeconds (it overrides [limits] idle of the agent file).'
        });
        assert.ok(events.some(event => event.type === 'TextDelta'), 'the answer had started');
        assert.equal(provider.requests, 1, 'never retried after the first byte');
    });

    it('the total limit from the agent file ends a silent answer before the idle limit would', async () => {
        provider.behaviour = 'silent';
        const events: SessionEvent[] = [];
        const session = new Session('s', agent({ limits: { totalSeconds: 0.2, idleSeconds: 60 }, file: 'bundled:agents/claude-chat.toml' }), services(), batch => events.push(...batch));
        const error = await failure(session, events, false);
        assert.equal(error.message, 'No answer finished within 0.2 s (the total limit). To wait longer, raise [limits] total in a copy of the agent file '
            + 'agents/claude-chat.toml in ~/.qodeassist/agents/ or the setting qodeassist.limits.totalSeconds.');
    });
});
