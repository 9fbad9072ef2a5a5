import * as assert from 'node:assert/strict';
import type { ChatInput, ContextManifest } from '../../common/chat-protocol';
import { answerMessage, attachment, OPTIONS, sentInput, settle, setup, shape, storedChat, userMessage, withFinishedTurn } from './chat-controller.spec-support';
import { textOf } from './chat-transcript';

// The chat across a summary, a backend restart, other windows and its kept versions.
describe('ChatController: the chat through summaries, restarts, other windows and versions', () => {
    describe('summarize', () => {
        it('swaps the chat for the summary: events of the new chat id fill the view, the original is not closed', async () => {
            const parts = setup();
            const { service, client, composer, host, controller } = parts;
            await withFinishedTurn(parts);
            service.summary = {
                version: 1, id: 'chat-2', title: 'Summary of the parser talk', createdAt: '', updatedAt: '', edits: {},
                history: [{ role: 'user', blocks: [{ type: 'text', text: 'Summary: we talked about the parser.' }], compressedFrom: 'chat-1' }]
            };
            await controller.summarize();
            assert.deepEqual(service.callsOf('summarize'), [['chat-1', OPTIONS]]);
            assert.equal(await controller.currentChatId(), 'chat-2');
            assert.deepEqual(controller.savedChat, { chatId: 'chat-2', location: 'workspace' });
            assert.deepEqual(controller.transcript.messages.map(message => [message.role, textOf(message), message.compressedFrom]),
                [['user', 'Summary: we talked about the parser.', 'chat-1']]);
            assert.deepEqual([host.shown.map(opened => opened.chatId), composer.followed.map(opened => opened.chatId)], [['chat-2'], ['chat-2']]);
            assert.deepEqual([controller.summarizing, service.callsOf('closeSession')], [false, []]);
            await controller.send('go on');
            await client.push('chat-1', { type: 'RequestStarted', requestId: 'old' }, { type: 'TextDelta', requestId: 'old', text: 'stale' });
            await client.push('chat-2', { type: 'RequestStarted', requestId: 'r2' }, { type: 'TextDelta', requestId: 'r2', text: 'fresh' });
            assert.equal(textOf(controller.transcript.messages[2]), 'fresh');
            assert.equal(service.callsOf('send')[1][0], 'chat-2');
        });

        it('does nothing for a chat without messages', async () => {
            const { service, controller } = setup();
            await controller.ensureChat();
            await controller.summarize();
            assert.deepEqual(service.callsOf('summarize'), []);
        });

        it('is stopped from the view: the backend is told, the chat stays as it was without a failure notice, and a second summarize works', async () => {
            const parts = setup();
            const { service, controller, host } = parts;
            await withFinishedTurn(parts);
            const release = service.hold('summarize');
            const summarizing = controller.summarize();
            await settle();
            assert.deepEqual([controller.summarizing, controller.busy], [true, true], 'the view shows "Summarizing…" and sends nothing meanwhile');
            await controller.stop();
            assert.deepEqual(service.callsOf('cancelSummary'), [['chat-1']]);
            release(new Error('The request was cancelled.'));
            await summarizing;
            assert.deepEqual([controller.summarizing, controller.notice, await controller.currentChatId(), host.shown], [false, undefined, 'chat-1', []]);
            assert.deepEqual(shape(parts), [['user', 'first question', 'done'], ['assistant', 'first answer', 'done']]);
            assert.deepEqual(service.callsOf('cancel'), [], 'Stop cancels the summary, not a request of the chat');
            await controller.summarize();
            assert.deepEqual([service.callsOf('summarize').length, await controller.currentChatId()], [2, 'chat-2']);
        });

        it('keeps the chat and says why when summarizing fails', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            parts.service.fail.set('summarize', new Error('no compression agent'));
            await parts.controller.summarize();
            assert.equal(parts.controller.notice, 'Summarizing failed: no compression agent');
            assert.deepEqual([await parts.controller.currentChatId(), parts.controller.summarizing], ['chat-1', false]);
        });
    });

    describe('auto-compress', () => {
        const manifest = (estimate: number, limit: number) => ({ estimate, limit }) as ContextManifest;

        it('lets the backend summarize first when the next send would fill more than the allowed percent, then sends into the summary with a notice', async () => {
            const parts = setup();
            parts.host.percent = 80;
            await withFinishedTurn(parts);
            parts.composer.attachments = [attachment('log.txt')];
            parts.service.manifest = manifest(81, 100);
            parts.service.full = true;
            await parts.controller.send('next question');
            const input = { text: 'next question', attachments: [{ name: 'log.txt' }] };
            assert.deepEqual([parts.service.callsOf('estimate'), parts.service.callsOf('compressIfFull')], [[['chat-1', input, OPTIONS]], [['chat-1', input, OPTIONS, 80]]]);
            assert.deepEqual([parts.service.callsOf('send')[1][0], parts.controller.summarizing], ['chat-2', false]);
            assert.match(parts.controller.notice ?? '', /^The chat filled more than 80% of the agent's context, so it was summarized into this new chat first/);
        });

        it('sends into the same chat, never saying "Summarizing…", at exactly the allowed percent', async () => {
            const parts = setup();
            parts.host.percent = 80;
            await withFinishedTurn(parts);
            parts.service.manifest = manifest(80, 100);
            const updates = parts.host.updates;
            await parts.controller.send('next question');
            assert.deepEqual([parts.service.callsOf('compressIfFull'), parts.service.callsOf('send')[1][0], parts.controller.notice], [[], 'chat-1', undefined]);
            assert.equal(parts.host.updates - updates, 1, 'one render, for the turn: none for a summary state');
        });

        it('sends into the same chat when the backend finds that the send fits after all', async () => {
            const parts = setup();
            parts.host.percent = 80;
            await withFinishedTurn(parts);
            parts.service.manifest = manifest(90, 100);
            await parts.controller.send('next question');
            assert.deepEqual([parts.service.callsOf('compressIfFull').length, parts.service.callsOf('send')[1][0], parts.controller.notice], [1, 'chat-1', undefined]);
        });

        it('keeps the message in the composer and sends nothing when the summary before it is stopped or fails', async () => {
            const parts = setup();
            parts.host.percent = 50;
            await withFinishedTurn(parts);
            parts.composer.attachments = [attachment('log.txt')];
            parts.service.manifest = manifest(99, 100);
            const release = parts.service.hold('compressIfFull');
            const sending = parts.controller.send('too long');
            await settle();
            assert.equal(parts.controller.summarizing, true);
            await parts.controller.stop();
            release(new Error('The request was cancelled.'));
            await sending;
            assert.deepEqual([parts.composer.problem, parts.composer.attachments.length], [undefined, 1], 'stopped: no problem shown, the draft\'s attachment still waits');
            parts.service.failOnce.set('compressIfFull', new Error('no compression agent'));
            await parts.controller.send('too long');
            assert.deepEqual([parts.service.callsOf('cancelSummary'), parts.service.callsOf('send').length, parts.composer.problem], [[['chat-1']], 1, 'no compression agent']);
            assert.deepEqual([await parts.controller.currentChatId(), parts.controller.summarizing], ['chat-1', false]);
        });

        it('asks nothing when it is off or the chat is empty', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            parts.service.manifest = manifest(99, 100);
            await parts.controller.send('off');
            const fresh = setup();
            fresh.host.percent = 50;
            fresh.service.manifest = manifest(99, 100);
            await fresh.controller.send('first');
            assert.deepEqual([parts.service.callsOf('estimate'), fresh.service.callsOf('estimate'), parts.service.callsOf('compressIfFull'), fresh.service.callsOf('compressIfFull')], [[], [], [], []]);
        });
    });

    describe('backend restart', () => {
        it('opens the shown chat again under its id when the backend is back, and shows it as it is there, a running request included', async () => {
            const parts = setup();
            const { service, client, backend, controller } = parts;
            await withFinishedTurn(parts);
            await controller.send('second question');
            backend.leave();
            service.saved.set('chat-1', {
                chatId: 'chat-1', chat: storedChat('chat-1', [userMessage('first question'), answerMessage('first answer'), userMessage('second question')]),
                live: { requestId: 'r2', events: [{ type: 'RequestStarted', requestId: 'r2', agent: 'claude-chat' }, { type: 'TextDelta', requestId: 'r2', text: 'so far' }] }
            });
            await backend.return();
            assert.deepEqual(service.callsOf('openSession').at(-1), [{ location: 'workspace', workspacePath: '/work/app' }, 'chat-1']);
            assert.deepEqual(shape(parts), [
                ['user', 'first question', 'done'], ['assistant', 'first answer', 'done'], ['user', 'second question', 'done'], ['assistant', 'so far', 'streaming']
            ]);
            const answer = controller.transcript.messages[3];
            assert.deepEqual([answer.requestId, answer.agent, answer.stalled], ['r2', 'claude-chat', undefined]);
            await client.push('chat-1', { type: 'TextDelta', requestId: 'r2', text: ' and the rest' }, { type: 'Finished', requestId: 'r2', stopReason: 'end_turn' });
            assert.deepEqual(shape(parts)[3], ['assistant', 'so far and the rest', 'done']);
        });

        it('shows an answer the restart cut off as interrupted, with what had arrived', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            await parts.controller.send('second question');
            parts.backend.leave();
            parts.service.saved.set('chat-1', {
                chatId: 'chat-1',
                chat: storedChat('chat-1', [userMessage('first question'), answerMessage('first answer'), userMessage('second question'), answerMessage('half an', true)])
            });
            await parts.backend.return();
            assert.deepEqual(shape(parts).at(-1), ['assistant', 'half an', 'interrupted']);
            assert.equal(parts.controller.busy, false);
        });

        it('ends the answer here when Stop is pressed while the backend is away, and cancels the request once back if it still runs', async () => {
            const parts = setup();
            const { service, backend, controller } = parts;
            await controller.send('hi');
            backend.leave();
            await controller.stop();
            assert.deepEqual([service.callsOf('cancel'), shape(parts)[1], controller.busy], [[], ['assistant', '', 'cancelled'], false]);
            service.saved.set('chat-1', {
                chatId: 'chat-1', chat: storedChat('chat-1', [userMessage('hi')]), live: { requestId: 'r1', events: [{ type: 'RequestStarted', requestId: 'r1' }] }
            });
            await backend.return();
            assert.deepEqual(service.callsOf('cancel'), [['chat-1']]);
        });

        it('keeps an empty view when the backend has no file of the chat shown (it never had a message); the next message opens a new chat', async () => {
            const { service, backend, controller } = setup();
            await controller.ensureChat();
            backend.leave();
            service.missing.add('chat-1');
            await backend.return();
            assert.deepEqual([await controller.currentChatId(), controller.transcript.messages, controller.notice], [undefined, [], undefined]);
            await controller.send('hello');
            assert.deepEqual(service.callsOf('send').map(([chatId]) => chatId), ['chat-2']);
        });

        it('says why when a chat with messages cannot be opened again, and keeps it shown', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            parts.backend.leave();
            parts.service.missing.add('chat-1');
            await parts.backend.return();
            assert.equal(parts.controller.notice, 'QodeAssist could not open this chat again: There is no saved chat chat-1.');
            assert.deepEqual([await parts.controller.currentChatId(), shape(parts).length], ['chat-1', 2]);
        });
    });

    describe('other windows', () => {
        it('show the message another window sent, with its answer streaming here', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            await parts.client.push('chat-1', { type: 'UserMessage', turnId: 'other-window', message: userMessage('from the other window') },
                { type: 'RequestStarted', requestId: 'r2' }, { type: 'TextDelta', requestId: 'r2', text: 'answer' });
            assert.deepEqual(shape(parts).slice(2), [['user', 'from the other window', 'done'], ['assistant', 'answer', 'streaming']]);
            assert.equal(parts.controller.busy, true);
            assert.ok(parts.host.updates > 0);
        });

        it('leave the message this view sent as it is shown when its UserMessage comes', async () => {
            const parts = setup();
            await parts.controller.send('hi');
            const { turnId } = sentInput(parts.service, 0);
            await parts.client.push('chat-1', { type: 'UserMessage', turnId, message: userMessage('hi') }, { type: 'RequestStarted', requestId: 'r1' },
                { type: 'TextDelta', requestId: 'r1', text: 'hello' });
            assert.deepEqual(shape(parts), [['user', 'hi', 'done'], ['assistant', 'hello', 'streaming']]);
        });

        it('show another window\'s message above this view\'s message waiting to go, which says it is queued until its own turn starts', async () => {
            const parts = setup();
            const { service, client, controller } = parts;
            await controller.ensureChat();
            const release = service.hold('send');
            const sending = controller.send('mine');
            await settle();
            const { turnId } = sentInput(service, 0);
            await client.push('chat-1', { type: 'UserMessage', turnId: 'theirs', message: userMessage('theirs') }, { type: 'RequestStarted', requestId: 'rB' },
                { type: 'TextDelta', requestId: 'rB', text: 'their answer' });
            await client.push('chat-1', { type: 'Queued', turnId });
            assert.deepEqual(shape(parts), [['user', 'theirs', 'done'], ['assistant', 'their answer', 'streaming'], ['user', 'mine', 'done'], ['assistant', '', 'streaming']]);
            assert.deepEqual(controller.transcript.messages.map(message => !!message.queued), [false, false, true, false]);
            await client.push('chat-1', { type: 'Finished', requestId: 'rB', stopReason: 'end_turn' });
            await client.push('chat-1', { type: 'UserMessage', turnId, message: userMessage('mine') }, { type: 'RequestStarted', requestId: 'rA' },
                { type: 'TextDelta', requestId: 'rA', text: 'my answer' });
            release();
            await sending;
            assert.deepEqual(shape(parts), [['user', 'theirs', 'done'], ['assistant', 'their answer', 'done'], ['user', 'mine', 'done'], ['assistant', 'my answer', 'streaming']]);
            assert.equal(controller.transcript.messages[2].queued, false);
        });

        it('Stop on this view\'s message queued behind another window\'s answer withdraws that message only; the other answer goes on', async () => {
            const parts = setup();
            const { service, client, controller } = parts;
            await controller.ensureChat();
            const release = service.hold('send');
            const sending = controller.send('mine');
            await settle();
            const { turnId } = sentInput(service, 0);
            await client.push('chat-1', { type: 'UserMessage', turnId: 'theirs', message: userMessage('theirs') }, { type: 'RequestStarted', requestId: 'rB' });
            await client.push('chat-1', { type: 'Queued', turnId });
            await controller.stop();
            assert.deepEqual(service.callsOf('cancel'), [['chat-1', turnId]], 'withdraws the queued message, not the running answer');
            // The backend ends the withdrawn turn under its id.
            await client.push('chat-1', { type: 'RequestStarted', requestId: 'rW', turnId }, { type: 'Cancelled', requestId: 'rW' });
            release();
            await sending;
            assert.deepEqual(shape(parts), [['user', 'theirs', 'done'], ['assistant', '', 'streaming'], ['user', 'mine', 'done'], ['assistant', '', 'cancelled']]);
        });

        it('follow the chat to its conflict copy: later events under the new id reach the view, and the view remembers the new id', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            await parts.client.push('chat-1', { type: 'Moved', chatId: 'chat-1-conflict-x' });
            assert.equal(await parts.controller.currentChatId(), 'chat-1-conflict-x');
            assert.deepEqual(parts.controller.savedChat?.chatId, 'chat-1-conflict-x');
            await parts.client.push('chat-1-conflict-x', { type: 'UserMessage', turnId: 'other', message: userMessage('later') }, { type: 'RequestStarted', requestId: 'r9' },
                { type: 'TextDelta', requestId: 'r9', text: 'still here' });
            assert.deepEqual(shape(parts).slice(-2), [['user', 'later', 'done'], ['assistant', 'still here', 'streaming']]);
            assert.ok(parts.client.handlers.has('chat-1') && parts.client.handlers.has('chat-1-conflict-x'), 'tools of a request under way still ask under the old id');
        });

        it('replace the conversation with the history a History event brings; the retry\'s request that follows fills a new answer', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            await parts.client.push('chat-1', { type: 'History', history: [userMessage('first question')], edits: {}, branches: [] },
                { type: 'RequestStarted', requestId: 'r2' }, { type: 'TextDelta', requestId: 'r2', text: 'another answer' });
            assert.deepEqual(shape(parts), [['user', 'first question', 'done'], ['assistant', 'another answer', 'streaming']]);
        });
    });

    describe('versions: edit and resend, reset, bring back', () => {
        it('edits and resends a question: the view drops it and what followed, the backend gets the turn and the new text', async () => {
            const parts = setup();
            const { service, controller, client } = parts;
            await withFinishedTurn(parts);
            await controller.editAndResend(controller.transcript.messages[0], '  better question ');
            const [[chatId, turn, input]] = service.callsOf('editAndSend') as Array<[string, number, ChatInput]>;
            assert.deepEqual([chatId, turn, input.text], ['chat-1', 0, 'better question']);
            assert.deepEqual(shape(parts), [['user', 'better question', 'done'], ['assistant', '', 'streaming']]);
            // The backend tells every window the history before the edit, then the new message and its answer.
            await client.push('chat-1', { type: 'History', history: [], edits: {}, branches: [{ id: 'b1', turn: 0, part: 'question', reason: 'edit', createdAt: '2026-01-01T00:00:00Z', preview: 'first question', messages: 2 }] },
                { type: 'UserMessage', turnId: input.turnId, message: userMessage('better question') }, { type: 'RequestStarted', requestId: 'r2' },
                { type: 'TextDelta', requestId: 'r2', text: 'better answer' }, { type: 'Finished', requestId: 'r2', stopReason: 'end_turn' });
            assert.deepEqual(shape(parts), [['user', 'better question', 'done'], ['assistant', 'better answer', 'done']]);
            assert.deepEqual(controller.transcript.branches.map(branch => branch.id), ['b1']);
        });

        it('puts the question and what followed back when the edit is not taken', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            parts.service.failOnce.set('editAndSend', new Error('backend said no'));
            await parts.controller.editAndResend(parts.controller.transcript.messages[0], 'other');
            assert.deepEqual(shape(parts), [['user', 'first question', 'done'], ['assistant', 'first answer', 'done']]);
        });

        it('resets to an answer by its position, and brings a version back; neither while an answer streams', async () => {
            const parts = setup();
            const { service, controller } = parts;
            await withFinishedTurn(parts);
            await controller.resetTo(controller.transcript.messages[1]);
            await controller.switchVersion('b7');
            assert.deepEqual([service.callsOf('resetTo'), service.callsOf('switchBranch')], [[['chat-1', { turn: 0, part: 'answer' }]], [['chat-1', 'b7']]]);
            await controller.send('streaming now');
            await controller.resetTo(controller.transcript.messages[1]);
            assert.equal(service.callsOf('resetTo').length, 1, 'nothing is reset while an answer is on its way');
        });

        it('shows why a reset did not happen', async () => {
            const parts = setup();
            await withFinishedTurn(parts);
            parts.service.failOnce.set('resetTo', new Error('An answer is being written in this chat; stop it or let it finish, then try again.'));
            await parts.controller.resetTo(parts.controller.transcript.messages[0]);
            assert.match(parts.controller.notice ?? '', /being written/);
        });
    });
});
