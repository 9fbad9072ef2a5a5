import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import * as assert from 'node:assert/strict';
import { CancelledError } from '../wire/error-info';
import { answerElicitation, formFields, formProblem, McpElicitationAnswer, McpElicitationPrompt, McpElicitationRequest, namesASecret } from './mcp-elicitation';
import { FeatureServerFixture, until } from './mcp-features.spec-support';

const TICKET_SCHEMA = {
    type: 'object' as const,
    properties: {
        title: { type: 'string' as const, title: 'Title', minLength: 3, maxLength: 20 },
        email: { type: 'string' as const, format: 'email' as const },
        priority: { type: 'integer' as const, minimum: 1, maximum: 5, default: 3 },
        urgent: { type: 'boolean' as const, default: false },
        kind: { type: 'string' as const, oneOf: [{ const: 'bug', title: 'Bug' }, { const: 'idea', title: 'Idea' }] }
    },
    required: ['title', 'priority']
};

/** A server whose `ask` tool elicits TICKET_SCHEMA and returns what it got; `answers` records each result. */
function askingServer(answers: ElicitResult[]) {
    return (server: McpServer) => {
        server.registerTool('ask', { description: 'Asks the user for a ticket' }, async () => {
            const result = await server.server.elicitInput({ message: 'New ticket?', requestedSchema: TICKET_SCHEMA });
            answers.push(JSON.parse(JSON.stringify(result))); // As sent: the SDK's parse adds `content: undefined`.
            return { content: [{ type: 'text', text: JSON.stringify(result) }] };
        });
    };
}

/** The chat's side, answering as a user would: `answer` decides from the request. */
class ScriptedUser implements McpElicitationPrompt {
    readonly asked: McpElicitationRequest[] = [];
    readonly aborted: boolean[] = [];
    constructor(private readonly answer: (request: McpElicitationRequest, signal: AbortSignal) => Promise<McpElicitationAnswer>) { }
    ask(request: McpElicitationRequest, signal: AbortSignal): Promise<McpElicitationAnswer> {
        this.asked.push(request);
        signal.addEventListener('abort', () => this.aborted.push(true));
        return this.answer(request, signal);
    }
}

describe('MCP elicitation: the form a server asks for', () => {
    it('reads credential-like field names as such, and ordinary ones not', () => {
        for (const name of ['OPENAI_API_KEY', 'apiKey', 'OPENAI_KEY', 'GITHUB_PAT', 'key', 'session_id', 'cookie', 'password', 'auth_header']) {
            assert.equal(namesASecret(name), true, name);
        }
        for (const name of ['project', 'monkey', 'keyboard_layout', 'patch', 'ticket']) {
            assert.equal(namesASecret(name), false, name);
        }
    });

    it('has one field per property, of the spec\'s primitive kinds, with limits, defaults and choices', () => {
        assert.deepEqual(formFields(TICKET_SCHEMA), [
            { name: 'title', title: 'Title', required: true, secretLike: false, kind: 'string', minLength: 3, maxLength: 20 },
            { name: 'email', title: 'email', required: false, secretLike: false, kind: 'string', format: 'email' },
            { name: 'priority', title: 'priority', required: true, secretLike: false, kind: 'number', integer: true, minimum: 1, maximum: 5, default: 3 },
            { name: 'urgent', title: 'urgent', required: false, secretLike: false, kind: 'boolean', default: false },
            { name: 'kind', title: 'kind', required: false, secretLike: false, kind: 'enum', options: [{ value: 'bug', label: 'Bug' }, { value: 'idea', label: 'Idea' }] }
        ]);
    });

    it('a property of a kind the spec does not allow refuses the whole form', () => {
        assert.throws(() => formFields({ type: 'object', properties: { nested: { type: 'object' } } } as never), /asked for "nested" as a object; a form takes only strings, numbers, booleans and choices/);
    });

    it('validates each field and names the first problem', () => {
        const fields = formFields(TICKET_SCHEMA);
        assert.equal(formProblem(fields, { title: 'Crash on save', priority: 2 }), undefined);
        assert.equal(formProblem(fields, { priority: 2 }), 'Title: required');
        assert.equal(formProblem(fields, { title: 'ab', priority: 2 }), 'Title: must be at least 3 characters');
        assert.equal(formProblem(fields, { title: 'Crash', priority: 9 }), 'priority: must be at most 5');
        assert.equal(formProblem(fields, { title: 'Crash', priority: 2.5 }), 'priority: must be a whole number');
        assert.equal(formProblem(fields, { title: 'Crash', priority: 2, email: 'nobody' }), 'email: must be an email address');
        assert.equal(formProblem(fields, { title: 'Crash', priority: 2, kind: 'rant' }), 'kind: must be one of the choices');
        assert.equal(formProblem(fields, { title: 'Crash', priority: 2, urgent: 'yes' }), 'urgent: must be yes or no');
    });
});

describe('MCP elicitation against a real SDK server', function () {
    this.timeout(30_000);
    let fixture: FeatureServerFixture;
    afterEach(() => fixture.dispose());

    it('accept: the form shows in the chat of the waiting call, and the server gets exactly the form\'s fields', async () => {
        const answers: ElicitResult[] = [];
        fixture = new FeatureServerFixture(askingServer(answers));
        const user = new ScriptedUser(async () => ({ action: 'accept', content: { title: 'Crash on save', priority: 4, urgent: true, extra: 'not asked' } }));
        await fixture.start({ elicitation: user });
        const result = await fixture.run('ask', {}, undefined, 'chat-7');
        assert.deepEqual(answers, [{ action: 'accept', content: { title: 'Crash on save', priority: 4, urgent: true } }]);
        assert.equal(result.isError, false);
        assert.equal(user.asked.length, 1);
        const [request] = user.asked;
        assert.equal(request.chatId, 'chat-7');
        assert.equal(request.server, 'srv');
        assert.equal(request.message, 'New ticket?');
        assert.equal(request.mode === 'form' && request.fields.map(field => field.name).join(','), 'title,email,priority,urgent,kind');
    });

    it('decline and cancel reach the server as the user chose them', async () => {
        const answers: ElicitResult[] = [];
        fixture = new FeatureServerFixture(askingServer(answers));
        const choices: McpElicitationAnswer[] = [{ action: 'decline' }, { action: 'cancel' }];
        await fixture.start({ elicitation: new ScriptedUser(async () => choices.shift()!) });
        await fixture.run('ask');
        await fixture.run('ask');
        assert.deepEqual(answers, [{ action: 'decline' }, { action: 'cancel' }]);
    });

    it('an answer that does not fit the form is not sent as given: the server gets decline', async () => {
        const answers: ElicitResult[] = [];
        fixture = new FeatureServerFixture(askingServer(answers));
        await fixture.start({ elicitation: new ScriptedUser(async () => ({ action: 'accept', content: { title: 'x', priority: 99 } })) });
        await fixture.run('ask');
        assert.deepEqual(answers, [{ action: 'decline' }]);
    });

    it('without a place to ask (no chat), every question is declined', async () => {
        const answers: ElicitResult[] = [];
        fixture = new FeatureServerFixture(askingServer(answers));
        await fixture.start();
        await fixture.run('ask');
        assert.deepEqual(answers, [{ action: 'decline' }]);
    });

    it('stopping the turn cancels the call waiting on the form, and the form with it', async () => {
        const answers: ElicitResult[] = [];
        fixture = new FeatureServerFixture(askingServer(answers));
        const user = new ScriptedUser(() => new Promise<McpElicitationAnswer>(() => undefined)); // The user never answers.
        await fixture.start({ elicitation: user });
        const turn = new AbortController();
        const running = fixture.run('ask', {}, turn.signal);
        await until(() => user.asked.length === 1, 'the form');
        turn.abort();
        await assert.rejects(running, CancelledError);
        await until(() => user.aborted.length === 1, 'the form to be withdrawn');
        // The server's tool is still waiting for its answer: it gets cancel, not a value nobody typed.
        await until(() => answers.length === 1, 'the server to hear the answer');
        assert.deepEqual(answers, [{ action: 'cancel' }]);
    });

    it('URL mode: the user is shown the page and its origin; accept says it was opened, nothing else is sent', async () => {
        const answers: ElicitResult[] = [];
        fixture = new FeatureServerFixture(server => {
            server.registerTool('connect', { description: 'Needs the user to authorize in a browser' }, async () => {
                const result = await server.server.elicitInput({ mode: 'url', message: 'Authorize the repository', url: 'https://example.com/authorize?state=1', elicitationId: 'e-1' });
                answers.push(JSON.parse(JSON.stringify(result)));
                return { content: [{ type: 'text', text: 'ok' }] };
            });
        });
        const user = new ScriptedUser(async () => ({ action: 'accept', content: { smuggled: 'x' } }));
        await fixture.start({ elicitation: user });
        await fixture.run('connect');
        assert.deepEqual(user.asked.map(request => request.mode === 'url' ? [request.url, request.origin, request.elicitationId] : []), [['https://example.com/authorize?state=1', 'https://example.com', 'e-1']]);
        assert.deepEqual(answers, [{ action: 'accept' }]);
    });
});

describe('MCP elicitation: what a URL-mode question may open', () => {
    const ask = (url: string, asked: McpElicitationRequest[]) => answerElicitation('srv', { mode: 'url', message: 'Open', url, elicitationId: 'e' },
        { ask: async request => { asked.push(request); return { action: 'accept' }; } }, undefined, new AbortController().signal);

    it('only a web page: javascript:, file: and a malformed address are declined without asking', async () => {
        const asked: McpElicitationRequest[] = [];
        for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'not a url']) {
            assert.deepEqual(await ask(url, asked), { action: 'decline' });
        }
        assert.equal(asked.length, 0);
        assert.deepEqual(await ask('https://example.com/a', asked), { action: 'accept' });
        assert.equal(asked.length, 1);
    });
});
