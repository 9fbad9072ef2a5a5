import * as assert from 'node:assert/strict';
import type { McpElicitationAnswer, McpElicitationRequest, McpFormField } from '../../common/mcp-features-protocol';
import { formValues, McpElicitations } from './mcp-elicitations';

const FIELDS: McpFormField[] = [
    { name: 'title', title: 'Title', required: true, secretLike: false, kind: 'string', default: 'Bug' },
    { name: 'priority', title: 'Priority', required: true, secretLike: false, kind: 'number', integer: true, default: 3 },
    { name: 'urgent', title: 'Urgent', required: false, secretLike: false, kind: 'boolean' },
    { name: 'OPENAI_API_KEY', title: 'OPENAI_API_KEY', required: false, secretLike: true, kind: 'string' }
];

function form(chatId?: string): McpElicitationRequest {
    return { server: 'srv', message: 'New ticket?', mode: 'form', fields: FIELDS, ...(chatId ? { chatId } : {}) };
}

describe('MCP elicitation form in the chat', () => {
    it('opens with the server\'s defaults, but never a value for a key-named field', () => {
        const elicitations = new McpElicitations();
        void elicitations.requestMcpElicitation('q1', form('chat-1'));
        const [pending] = elicitations.forChat('chat-1');
        assert.deepEqual(pending.raw, { title: 'Bug', priority: '3', urgent: false });
        assert.ok(!('OPENAI_API_KEY' in pending.raw));
    });

    it('shows a question in the view of its chat only; one of no chat, or of a chat no view shows, in every view', () => {
        const elicitations = new McpElicitations();
        const first = {};
        const second = {};
        elicitations.showing(first, 'chat-1');
        elicitations.showing(second, 'chat-2');
        void elicitations.requestMcpElicitation('q1', form('chat-1'));
        void elicitations.requestMcpElicitation('q2', form());
        void elicitations.requestMcpElicitation('q3', form('chat-hidden'));
        assert.deepEqual(elicitations.forChat('chat-1').map(pending => pending.id), ['q1', 'q2', 'q3']);
        assert.deepEqual(elicitations.forChat('chat-2').map(pending => pending.id), ['q2', 'q3']);
        elicitations.showing(first, undefined); // The view of chat-1 closed: its question goes to the others.
        assert.deepEqual(elicitations.forChat('chat-2').map(pending => pending.id), ['q1', 'q2', 'q3']);
    });

    it('Accept sends the typed values once the check passes; a problem stays in the form', async () => {
        const elicitations = new McpElicitations();
        const checked: unknown[] = [];
        elicitations.check = async (_fields, values) => {
            checked.push(values);
            return values.priority === 9 ? 'Priority: must be at most 5' : undefined;
        };
        let answer: McpElicitationAnswer | undefined;
        void elicitations.requestMcpElicitation('q1', form('chat-1')).then(result => { answer = result; });
        elicitations.setRaw('q1', 'priority', '9');
        await elicitations.accept('q1');
        assert.equal(elicitations.forChat('chat-1')[0].problem, 'Priority: must be at most 5');
        assert.equal(answer, undefined);
        elicitations.setRaw('q1', 'priority', '4');
        await elicitations.accept('q1');
        await Promise.resolve();
        assert.deepEqual(answer, { action: 'accept', content: { title: 'Bug', priority: 4, urgent: false } });
        assert.equal(elicitations.forChat('chat-1').length, 0);
        assert.equal(checked.length, 2);
    });

    it('Decline and Cancel answer so; a withdrawn question (the turn stopped) is cancelled and goes away', async () => {
        const elicitations = new McpElicitations();
        const answers = await Promise.all([
            (() => { const answer = elicitations.requestMcpElicitation('a', form('c')); elicitations.decline('a'); return answer; })(),
            (() => { const answer = elicitations.requestMcpElicitation('b', form('c')); elicitations.cancel('b'); return answer; })(),
            (() => { const answer = elicitations.requestMcpElicitation('d', form('c')); elicitations.withdrawMcpElicitation('d'); return answer; })()
        ]);
        assert.deepEqual(answers, [{ action: 'decline' }, { action: 'cancel' }, { action: 'cancel' }]);
        assert.equal(elicitations.forChat('c').length, 0);
    });

    it('typed text becomes the field\'s type: numbers parsed, empty fields left out, a bad number kept as text for the check to name', () => {
        assert.deepEqual(formValues(FIELDS, { title: 'Crash', priority: ' 2 ', urgent: true, OPENAI_API_KEY: '' }), { title: 'Crash', priority: 2, urgent: true });
        assert.deepEqual(formValues(FIELDS, { title: 'Crash', priority: 'two' }), { title: 'Crash', priority: 'two' });
    });
});
