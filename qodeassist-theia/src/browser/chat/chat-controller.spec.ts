import * as assert from 'node:assert/strict';
import type { AcpPermissionRequest, ChatEvent, ChatInput, SkillChoice } from '../../common/chat-protocol';
import {
    answerMessage, attachment, NOT_OPEN, OPTIONS, sentInput, settle, setup, shape, storedChat, userMessage, withFinishedTurn
} from './chat-controller.spec-support';
import { BACKEND_AWAY_PROBLEM } from './chat-reconnect';
import { textOf } from './chat-transcript';

// Summaries, backend restarts, other windows and versions: chat-controller-lifecycle.spec.ts.
describe('ChatController', () => {
    describe('send', () => {
        it('opens the chat on first use and sends the text, the attachments and the composer\'s options', async () => {
            const { service, composer, controller } = setup();
            composer.attachments = [attachment('notes.md')];
            await controller.send('  explain this  ');
            assert.deepEqual(service.callsOf('openSession'), [[{ location: 'workspace', workspacePath: '/work/app' }, undefined]]);
            const { turnId } = sentInput(service, 0);
            assert.match(turnId!, /^[0-9a-f]{32}$/);
            assert.deepEqual(service.callsOf('send'), [['chat-1', { text: 'explain this', attachments: [{ name: 'notes.md' }], turnId }, OPTIONS]]);
            const [user, answer] = controller.transcript.messages;
            assert.deepEqual([textOf(user), user.attachments, answer.status], ['explain this', [{ name: 'notes.md', mediaType: 'text/plain' }], 'streaming']);
            assert.deepEqual(controller.savedChat, { chatId: 'chat-1', location: 'workspace' });
            assert.equal(await controller.currentChatId(), 'chat-1');
        });

        it('shows a known /skill as an invocation with the rest as its text, and sends the message as typed', async () => {
            const { service, composer, controller } = setup();
            composer.skillChoices = [{ name: 'review', description: 'Reviews code' } as SkillChoice];
            await controller.send('/review the parser');
            const [user] = controller.transcript.messages;
            assert.deepEqual([user.skill, textOf(user)], ['review', 'the parser']);
            assert.equal((service.callsOf('send')[0][1] as ChatInput).text, '/review the parser');
        });

        it('sends nothing for an empty draft, or while an answer streams', async () => {
            const { service, controller } = setup();
            await controller.send('   ');
            assert.deepEqual(service.calls, []);
            await controller.send('one');
            await controller.send('two');
            assert.equal(service.callsOf('send').length, 1);
        });

        it('says why in the composer when QodeAssist is off, and sends nothing', async () => {
            const { service, composer, host, controller } = setup();
            host.off = 'QodeAssist is off for this project.';
            await controller.send('hello');
            assert.equal(composer.problem, 'QodeAssist is off for this project.');
            assert.deepEqual([service.calls, controller.transcript.messages], [[], []]);
        });

        it('gives each send its own turn id', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            await parts.controller.send('second');
            assert.notEqual(sentInput(parts.service, 0).turnId, sentInput(parts.service, 1).turnId);
        });

        it('refuses to send while the backend is away: the draft and its attachments stay in the composer, nothing is shown or sent', async () => {
            const { service, composer, backend, controller } = setup();
            composer.attachments = [attachment('notes.md')];
            backend.leave();
            await controller.send('hello');
            assert.equal(composer.problem, BACKEND_AWAY_PROBLEM);
            assert.deepEqual([service.calls, controller.transcript.messages, composer.attachments.length], [[], [], 1]);
            await backend.return();
            assert.equal(composer.problem, undefined, 'the composer stops saying so once the backend is back');
        });

        it('keeps the chat and gives the message back to the composer when the connection drops during the send; no answer fails', async () => {
            const parts = setup();
            const { service, composer, backend, controller } = parts;
            await withFinishedTurn(parts);
            const release = service.hold('send');
            const sending = controller.send('second question');
            await settle();
            assert.deepEqual(shape(parts).at(-1), ['assistant', '', 'streaming']);
            backend.leave();
            assert.equal(controller.transcript.messages[3].stalled, true, 'the answer says it waits for the backend instead of spinning');
            release(new Error('reconnecting channel'));
            await sending;
            assert.deepEqual(shape(parts), [['user', 'first question', 'done'], ['assistant', 'first answer', 'done']]);
            assert.deepEqual([composer.restored, composer.problem, await controller.currentChatId()], [['second question'], BACKEND_AWAY_PROBLEM, 'chat-1']);
        });

        it('says that the backend is away even while an answer waits for it, and sends nothing', async () => {
            const { service, composer, backend, controller } = setup();
            await controller.send('hi');
            backend.leave();
            await controller.send('typed while away');
            assert.deepEqual([composer.problem, service.callsOf('send').length, controller.transcript.messages.length], [BACKEND_AWAY_PROBLEM, 1, 2]);
        });

        it('keeps a message the backend recorded when only the reply of its send was lost', async () => {
            const parts = setup();
            const { service, client, composer, backend, controller } = parts;
            await controller.ensureChat();
            const release = service.hold('send');
            const sending = controller.send('hi');
            await settle();
            await client.push('chat-1', { type: 'UserMessage', turnId: sentInput(service, 0).turnId, message: userMessage('hi') }, { type: 'RequestStarted', requestId: 'r1' });
            backend.leave();
            release(new Error('reconnecting channel'));
            await sending;
            assert.deepEqual(shape(parts), [['user', 'hi', 'done'], ['assistant', '', 'streaming']]);
            assert.deepEqual([composer.restored, composer.problem], [[], undefined]);
        });

        it('opens the chat again under the same id and sends once more when the backend no longer holds it (it restarted)', async () => {
            const parts = setup();
            const { service, composer, controller } = parts;
            await withFinishedTurn(parts);
            service.saved.set('chat-1', { chatId: 'chat-1', chat: storedChat('chat-1', [userMessage('first question'), answerMessage('first answer')]) });
            service.failOnce.set('send', NOT_OPEN);
            await controller.send('second question');
            assert.deepEqual(service.callsOf('openSession').map(([, chatId]) => chatId), [undefined, 'chat-1']);
            assert.deepEqual(service.callsOf('send').map(([chatId]) => chatId), ['chat-1', 'chat-1', 'chat-1']);
            assert.equal(sentInput(service, 1).turnId, sentInput(service, 2).turnId);
            assert.deepEqual(shape(parts), [['user', 'first question', 'done'], ['assistant', 'first answer', 'done'], ['user', 'second question', 'done'], ['assistant', '', 'streaming']]);
            assert.deepEqual([composer.restored, composer.problem], [[], undefined]);
        });

        it('ends this view\'s answer when the resend after a reopen fails to start (the backend names the turn): nothing keeps streaming', async () => {
            const parts = setup();
            const { service, client, controller } = parts;
            await withFinishedTurn(parts);
            service.saved.set('chat-1', { chatId: 'chat-1', chat: storedChat('chat-1', [userMessage('first question'), answerMessage('first answer')]) });
            service.failOnce.set('send', NOT_OPEN);
            await controller.send('second question');
            const { turnId } = sentInput(service, 2);
            await client.push('chat-1', { type: 'RequestStarted', requestId: 'rF', turnId },
                { type: 'Failed', requestId: 'rF', error: { category: 'Auth', message: 'no key' } });
            assert.deepEqual(shape(parts), [['user', 'first question', 'done'], ['assistant', 'first answer', 'done'], ['user', 'second question', 'done'], ['assistant', '', 'failed']]);
            assert.equal(controller.busy, false);
        });

        it('starts a new chat when the backend no longer holds one that never had a message', async () => {
            const { service, controller } = setup();
            await controller.ensureChat();
            service.missing.add('chat-1');
            service.failOnce.set('send', NOT_OPEN);
            await controller.send('hello');
            assert.deepEqual(service.callsOf('send').map(([chatId]) => chatId), ['chat-1', 'chat-2']);
            assert.equal(await controller.currentChatId(), 'chat-2');
        });

        it('keeps the draft and says why when the backend takes no message though it is reachable', async () => {
            const { service, composer, controller } = setup();
            service.fail.set('send', new Error('Request \'send\' failed'));
            await controller.send('hello');
            assert.deepEqual([controller.transcript.messages, composer.restored], [[], ['hello']]);
            assert.equal(composer.problem, 'The QodeAssist backend could not take the message: Request \'send\' failed');
            assert.equal(await controller.currentChatId(), 'chat-1');
        });

        it('keeps the draft and shows the problem when an attachment cannot go, before any turn begins', async () => {
            const { service, composer, controller } = setup();
            composer.takeError = new Error('"big.png" is 9.0 MB; the chat takes images up to 5.0 MB.');
            await controller.send('look');
            assert.equal(composer.problem, '"big.png" is 9.0 MB; the chat takes images up to 5.0 MB.');
            assert.deepEqual([controller.transcript.messages, service.callsOf('send')], [[], []]);
        });
    });

    describe('session events', () => {
        it('route the events of this chat into the pending answer and ignore other chats\' events', async () => {
            const { client, host, controller } = setup();
            await controller.send('hi');
            await client.push('chat-1', { type: 'RequestStarted', requestId: 'r1', agent: 'claude-chat', model: 'sonnet' }, { type: 'TextDelta', requestId: 'r1', text: 'Hel' });
            await client.push('other-chat', { type: 'TextDelta', requestId: 'r1', text: 'NOT MINE' });
            await client.push('chat-1', { type: 'TextDelta', requestId: 'r1', text: 'lo' });
            const answer = controller.transcript.messages[1];
            assert.deepEqual([textOf(answer), answer.agent, answer.status], ['Hello', 'claude-chat', 'streaming']);
            assert.deepEqual(host.streams, [false, false]);
        });

        it('end a request: the answer is final, waiting prompts go, the counter estimates again and the whole view renders', async () => {
            const { client, composer, host, controller } = setup();
            await controller.send('hi');
            void client.requestPermission('chat-1', { tool: 'edit_file', permission: 'write', arguments: { path: 'a.ts' }, chatId: 'chat-1' });
            assert.equal(controller.permissions.length, 1);
            await client.push('chat-1', { type: 'RequestStarted', requestId: 'r1' }, { type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
            assert.equal(controller.transcript.messages[1].status, 'done');
            assert.deepEqual([controller.permissions, composer.estimatesScheduled, host.streams, controller.busy], [[], 1, [true], false]);
        });

        it('offer the setup again after an Auth, Network or Config failure, not after a Provider failure', async () => {
            for (const [category, checks] of [['Auth', 1], ['Network', 1], ['Config', 1], ['Provider', 0]] as const) {
                const { client, host, controller } = setup();
                await controller.send('hi');
                await client.push('chat-1', { type: 'RequestStarted', requestId: 'r1' }, { type: 'Failed', requestId: 'r1', error: { category, message: 'no' } });
                assert.equal(host.setupChecks, checks, category);
                assert.deepEqual(controller.transcript.messages[1].error, { category, message: 'no' });
            }
        });

        it('show a notice about this chat and ignore notices about others', async () => {
            const { client, controller } = setup();
            await controller.send('hi');
            await client.notice('other-chat', 'not mine');
            assert.equal(controller.notice, undefined);
            await client.notice('chat-1', 'The chat could not be saved: disk full');
            assert.equal(controller.notice, 'The chat could not be saved: disk full');
        });
    });

    describe('stop', () => {
        it('denies waiting prompts and cancels the request in flight', async () => {
            const { service, client, controller } = setup();
            await controller.send('hi');
            const answer = client.requestPermission('chat-1', { tool: 'execute_terminal_command', permission: 'execute', arguments: { command: 'ls' }, chatId: 'chat-1' });
            await controller.stop();
            assert.equal(await answer, 'deny');
            assert.deepEqual([controller.permissions, service.callsOf('cancel')], [[], [['chat-1']]]);
        });

        it('cancels nothing when no request is in flight', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            await parts.controller.stop();
            assert.deepEqual(parts.service.callsOf('cancel'), []);
        });
    });

    describe('permissions', () => {
        it('pass the user\'s answer back to the tool that asked', async () => {
            const { client, controller } = setup();
            await controller.send('hi');
            const answer = client.requestPermission('chat-1', { tool: 'create_file', permission: 'write', arguments: { path: 'b.ts' }, chatId: 'chat-1' });
            controller.answerPermission(controller.permissions[0], 'allow-chat');
            assert.equal(await answer, 'allow-chat');
            assert.deepEqual(controller.permissions, []);
        });

        const agentRequest: AcpPermissionRequest = {
            agent: 'claude-code', sessionId: 's1', options: [{ optionId: 'yes', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }],
            toolCall: { callId: 'c1', title: 'Edit a.ts', kind: 'edit', status: 'pending', locations: [{ path: '/work/app/a.ts' }], content: [] }
        };
        it('an external agent\'s question shows its own options and answers with the one picked', async () => {
            const { client, controller } = setup();
            await controller.send('hi');
            const answer = client.requestAgentPermission('chat-1', agentRequest);
            const pending = controller.permissions[0];
            assert.deepEqual([pending.agent?.request.options.map(option => option.name), pending.request.permission], [['Allow', 'Reject'], 'write']);
            controller.answerPermission(pending, { optionId: 'no' });
            assert.deepEqual(await answer, { optionId: 'no' });
            assert.deepEqual(controller.permissions, []);
        });

        it('an external agent\'s question still open when the answer ends closes unanswered: nothing is allowed', async () => {
            const { client, controller } = setup();
            await controller.send('hi');
            const answer = client.requestAgentPermission('chat-1', agentRequest);
            assert.equal(controller.permissions.length, 1);
            await client.push('chat-1', { type: 'Cancelled', requestId: 'r1' });
            assert.deepEqual(await answer, { cancelled: true });
            assert.deepEqual(controller.permissions, []);
        });
    });

    describe('saved chats', () => {
        it('open in a new session seeded with their history; the chat shown before is closed', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            await parts.controller.openSaved('saved-7', 'user');
            assert.deepEqual(parts.service.callsOf('closeSession'), [['chat-1']]);
            assert.deepEqual(parts.service.callsOf('openSession')[1], [{ location: 'user', workspacePath: '/work/app' }, 'saved-7']);
            assert.deepEqual([await parts.controller.currentChatId(), parts.controller.savedChat], ['saved-7', { chatId: 'saved-7', location: 'user' }]);
        });

        it('show why a saved chat could not be opened', async () => {
            const { service, controller } = setup();
            service.fail.set('openSession', new Error('chat file is unreadable'));
            await controller.openSaved('broken');
            assert.equal(controller.notice, 'chat file is unreadable');
        });
    });

    describe('edits', () => {
        it('take edits back newest first and tell the backend each one that worked', async () => {
            const parts = setup();
            await parts.controller.send('fix');
            const record = (path: string) => ({ path, absolutePath: `/work/app/${path}`, diff: '', created: false });
            const edit = (callId: string, path: string): ChatEvent[] => [
                { type: 'ToolCallStart', requestId: 'r1', callId, name: 'edit_file' },
                { type: 'ToolResult', requestId: 'r1', callId, name: 'edit_file', content: 'ok', isError: false, fileEdit: record(path) }
            ];
            await parts.client.push('chat-1', { type: 'RequestStarted', requestId: 'r1' }, ...edit('c1', 'a.ts'), ...edit('c2', 'b.ts'),
                { type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
            const answer = parts.controller.transcript.messages[1];
            await parts.controller.setEdit(answer, parts.controller.transcript.editsOf(answer), 'undone');
            assert.deepEqual(parts.undone, ['b.ts', 'a.ts']);
            assert.deepEqual(parts.service.callsOf('setEditState'), [['chat-1', 'c2', 'undone'], ['chat-1', 'c1', 'undone']]);
        });
    });

    describe('retry', () => {
        it('asks the backend again for an interrupted answer, with the composer\'s options', async () => {
            const parts = setup();
            parts.service.saved.set('saved-1', { chatId: 'saved-1', chat: storedChat('saved-1', [userMessage('question'), answerMessage('half', true)]) });
            await parts.controller.openSaved('saved-1');
            await parts.controller.retry(parts.controller.transcript.messages[1]);
            assert.deepEqual([parts.service.callsOf('retry'), parts.service.callsOf('send')], [[['saved-1', OPTIONS]], []]);
            assert.equal(parts.controller.busy, false);
        });

        it('asks the backend again for a failed answer whose message it recorded; sends the question anew when the request never started', async () => {
            const parts = setup();
            const { service, client, composer, controller } = parts;
            await controller.send('hi');
            const { turnId } = sentInput(service, 0);
            await client.push('chat-1', { type: 'UserMessage', turnId, message: userMessage('hi') }, { type: 'RequestStarted', requestId: 'r1' },
                { type: 'Failed', requestId: 'r1', error: { category: 'Provider', message: 'overloaded' } });
            await controller.retry(controller.transcript.messages[1]);
            assert.deepEqual(service.callsOf('retry'), [['chat-1', OPTIONS]]);

            const fresh = setup();
            await fresh.controller.send('hi');
            await fresh.client.push('chat-1', { type: 'RequestStarted', requestId: 'r1' }, { type: 'Failed', requestId: 'r1', error: { category: 'Config', message: 'no agent' } });
            fresh.composer.attachments = [attachment('draft.md')];
            await fresh.controller.retry(fresh.controller.transcript.messages[1]);
            assert.deepEqual([fresh.service.callsOf('retry'), fresh.service.callsOf('send').map(([, input]) => (input as ChatInput).text)], [[], ['hi', 'hi']]);
            assert.equal(fresh.composer.attachments.length, 1, 'the draft\'s attachments stay for the draft');
            assert.deepEqual(composer.restored, []);
        });

        it('asks nothing while the backend is away, and says why', async () => {
            const parts = setup();
            parts.service.saved.set('saved-1', { chatId: 'saved-1', chat: storedChat('saved-1', [userMessage('question'), answerMessage('half', true)]) });
            await parts.controller.openSaved('saved-1');
            parts.backend.leave();
            await parts.controller.retry(parts.controller.transcript.messages[1]);
            assert.deepEqual([parts.service.callsOf('retry'), parts.composer.problem], [[], BACKEND_AWAY_PROBLEM]);
        });

        it('opens the chat again and retries once more when the backend no longer holds it', async () => {
            const parts = setup();
            parts.service.saved.set('chat-1', { chatId: 'chat-1', chat: storedChat('chat-1', [userMessage('question'), answerMessage('half', true)]) });
            await parts.controller.openSaved('chat-1');
            parts.service.failOnce.set('retry', NOT_OPEN);
            await parts.controller.retry(parts.controller.transcript.messages[1]);
            assert.deepEqual(parts.service.callsOf('retry').map(([chatId]) => chatId), ['chat-1', 'chat-1']);
            assert.deepEqual(parts.service.callsOf('openSession').map(([, chatId]) => chatId), ['chat-1', 'chat-1']);
            assert.equal(parts.composer.problem, undefined);
        });
    });

    it('denies waiting prompts and closes its session when disposed', async () => {
        const { service, client, controller } = setup();
        await controller.send('hi');
        const answer = client.requestPermission('chat-1', { tool: 'edit_file', permission: 'write', arguments: { path: 'a.ts' }, chatId: 'chat-1' });
        controller.dispose();
        await settle();
        assert.equal(await answer, 'deny');
        assert.deepEqual([service.callsOf('closeSession'), client.handlers.size], [[['chat-1']], 0]);
    });
});
