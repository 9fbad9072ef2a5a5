import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { BUILTIN_PROTOCOLS, FakeProtocol } from '../fake-provider/protocols';
import { DynamicScenario, ReplayScenario, StatusScenario } from '../fake-provider/scenarios';

/**
 * The scripted model behind the published agent (Claude Code, which speaks the Anthropic
 * Messages API): streams as the API documents them, plus sane answers to Claude Code's side
 * requests, so that none of them fails and changes what the agent does.
 */

/** Claude Code counts tokens before a turn (`POST /v1/messages/count_tokens`, plain JSON). */
export const ANTHROPIC_COUNT_TOKENS: FakeProtocol = {
    name: 'anthropic-count-tokens', method: 'POST', path: /\/v1\/messages\/count_tokens$/, contentType: 'application/json',
    splitRecords: recording => [recording], lastUserText: () => undefined, defaultFixture: 'models/anthropic-models.json'
};

/** The fake provider's routes for Claude Code: the built-in ones and its token count. */
export const CLAUDE_CODE_PROTOCOLS: readonly FakeProtocol[] = [...BUILTIN_PROTOCOLS, ANTHROPIC_COUNT_TOKENS];

export const COUNT_TOKENS_ANSWER: StatusScenario = { kind: 'status', status: 200, body: JSON.stringify({ input_tokens: 42 }) };

const sse = (events: Array<Record<string, unknown>>) => events.map(event => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
const usage = { input_tokens: 10, output_tokens: 1 };
const start = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-fake', content: [], stop_reason: null, usage } };

export function textStream(answer: string): ReplayScenario {
    return {
        kind: 'replay', recording: sse([start,
            { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
            { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: answer } },
            { type: 'content_block_stop', index: 0 },
            { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }, { type: 'message_stop' }])
    };
}

export function toolUseStream(id: string, name: string, input: Record<string, unknown>): ReplayScenario {
    return {
        kind: 'replay', recording: sse([start,
            { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id, name, input: {} } },
            { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) } },
            { type: 'content_block_stop', index: 0 },
            { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5 } }, { type: 'message_stop' }])
    };
}

/** A request that does not stream (a probe with `max_tokens: 1`) gets one JSON message. */
function textMessage(answer: string): StatusScenario {
    return {
        kind: 'status', status: 200, body: JSON.stringify({
            id: 'msg_side', type: 'message', role: 'assistant', model: 'claude-fake', content: [{ type: 'text', text: answer }],
            stop_reason: 'end_turn', stop_sequence: null, usage
        })
    };
}

interface ModelRequest {
    stream?: boolean;
    tools?: Array<{ name: string }>;
    messages?: Array<{ content: string | Array<{ type: string; content?: unknown; is_error?: boolean }> }>;
}

/** One tool result the agent sent back to the model. */
export interface SeenToolResult {
    text: string;
    isError: boolean;
}

/** What the scripted model was sent, turn by turn. */
export interface ModelLog {
    /** The tool results of each main request, as the model got them. */
    results: SeenToolResult[][];
}

/**
 * The model's script for one turn: read `file` with the agent's ACP Read tool, then replace
 * `oldText` by `newText` with its ACP Edit tool, then say it is done. Side requests (no tools,
 * or not streamed) get a short text.
 */
export function readThenEditModel(file: string, oldText: string, newText: string, log: ModelLog): DynamicScenario {
    return {
        kind: 'dynamic', respond: body => {
            const request = JSON.parse(body || '{}') as ModelRequest;
            if (request.stream !== true) {
                return textMessage('ok');
            }
            if (!request.tools?.length) {
                return textStream('ok');
            }
            const results = (request.messages ?? []).flatMap(message => Array.isArray(message.content) ? message.content : [])
                .filter(block => block.type === 'tool_result')
                .map(block => ({ text: JSON.stringify(block.content), isError: block.is_error === true }));
            log.results.push(results);
            if (results.length === 0) {
                return toolUseStream('toolu_read', 'mcp__acp__Read', { file_path: file });
            }
            if (results.length === 1) {
                return toolUseStream('toolu_edit', 'mcp__acp__Edit', { file_path: file, old_string: oldText, new_string: newText });
            }
            return textStream('The greeting is fixed.');
        }
    };
}

/**
 * An HTTP proxy on 127.0.0.1 that forwards nothing and records every destination asked of it:
 * given to the agent as its proxy (with 127.0.0.1 exempt), it shows whether the agent tried to
 * reach anything beyond the fake provider, with or without a network.
 */
export class RefusingProxy {
    readonly destinations: string[] = [];
    private server: Server | undefined;

    async start(): Promise<string> {
        const server = createServer((req, res) => {
            this.destinations.push(`${req.method} ${req.url}`);
            res.writeHead(502).end();
        });
        server.on('connect', (req, socket) => {
            this.destinations.push(`CONNECT ${req.url}`);
            socket.destroy();
        });
        await new Promise<void>((resolve, reject) => {
            server.once('error', reject);
            server.listen(0, '127.0.0.1', () => resolve());
        });
        this.server = server;
        return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }

    async stop(): Promise<void> {
        const server = this.server;
        this.server = undefined;
        if (server) {
            server.closeAllConnections();
            await new Promise<void>(resolve => server.close(() => resolve()));
        }
    }
}
