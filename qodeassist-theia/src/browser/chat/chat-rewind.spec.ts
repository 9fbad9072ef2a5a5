import * as assert from 'node:assert/strict';
import type { ChatEvent, RestoreMode } from '../../common/chat-protocol';
import { ChatRewindDeps, ChatRewindState } from './chat-rewind';
import { ChatTranscript } from './chat-transcript';

type Call = [method: string, ...args: unknown[]];

/** The checkpoint methods of the chat service in memory: every call recorded, answers as a backend gives them. */
function fakeService(calls: Call[], turns: number[]): ChatRewindDeps['service'] {
    const record = <T>(method: string, args: unknown[], result: T) => {
        calls.push([method, ...args]);
        return Promise.resolve(result);
    };
    const file = { path: 'src/a.ts', kind: 'modified' as const, diff: '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-x\n+y\n' };
    return {
        checkpointTurns: (chatId, workspace) => record('checkpointTurns', [chatId, workspace], turns),
        previewRestore: (chatId, workspace, turn) => record('previewRestore', [chatId, workspace, turn], { turn, files: [file], leftOut: { ignored: [], oversized: [], nestedRepositories: [] } }),
        restoreCheckpoint: (chatId, workspace, turn, mode: RestoreMode) => record('restoreCheckpoint', [chatId, workspace, turn, mode],
            { turn, mode, restoreId: 'restore-1', ...mode !== 'files' ? { branchId: 'branch-1' } : {}, changed: [{ path: 'src/a.ts', kind: 'modified' as const }], skipped: [] }),
        undoRestore: (chatId, workspace, restore) => record('undoRestore', [chatId, workspace, restore], { changed: [], skipped: [] }),
        reviewChanges: (chatId, workspace, fromTurn, toTurn) => record('reviewChanges', [chatId, workspace, fromTurn, toTurn], { fromTurn: fromTurn ?? 0, files: [file] }),
        keepChange: (chatId, workspace, path) => record('keepChange', [chatId, workspace, path], undefined),
        revertChange: (chatId, workspace, turn, path) => record('revertChange', [chatId, workspace, turn, path], { turn, mode: 'files' as const, restoreId: 'restore-2', changed: [], skipped: [] })
    };
}

describe('ChatRewindState', () => {
    let calls: Call[];
    let listener: ((envelope: { sessionId: string; events: ChatEvent[] }) => unknown) | undefined;
    let updates: number;
    const rewind = (turns: number[] = [0, 2]) => new ChatRewindState({
        service: fakeService(calls, turns), chatId: async () => 'chat-1', workspacePath: () => '/work/space',
        onEvents: handler => {
            listener = handler;
            return { dispose: () => { listener = undefined; } };
        },
        update: () => { updates++; }
    });
    beforeEach(() => {
        calls = [];
        listener = undefined;
        updates = 0;
    });

    it('asks which messages have a checkpoint when a turn of its chat ends, not for another chat\'s', async () => {
        const state = rewind();
        await listener!({ sessionId: 'other-chat', events: [{ type: 'Finished', requestId: 'r', stopReason: 'end_turn' }] });
        assert.deepEqual(calls, []);
        await listener!({ sessionId: 'chat-1', events: [{ type: 'Finished', requestId: 'r', stopReason: 'end_turn' }] });
        assert.deepEqual([...state.turns], [0, 2]);
        assert.deepEqual(calls, [['checkpointTurns', 'chat-1', '/work/space']]);
        state.dispose();
        assert.equal(listener, undefined);
    });

    it('asks first with a preview, restores what was chosen, and the undo names both the files\' checkpoint and the chat\'s version', async () => {
        const state = rewind();
        await state.ask(2);
        assert.equal(state.question?.preview?.files[0].path, 'src/a.ts');
        assert.equal(state.question?.mode, 'both');
        state.choose('chat');
        await state.confirm();
        assert.equal(state.question, undefined);
        assert.equal(state.restored?.branchId, 'branch-1');

        await state.undo();

        assert.equal(state.restored, undefined);
        assert.deepEqual(calls.filter(([method]) => method !== 'checkpointTurns'), [
            ['previewRestore', 'chat-1', '/work/space', 2],
            ['restoreCheckpoint', 'chat-1', '/work/space', 2, 'chat'],
            ['undoRestore', 'chat-1', '/work/space', { restoreId: 'restore-1', branchId: 'branch-1' }]
        ]);
        assert.ok(updates > 0);
    });

    it('reviews since the chat began (null over RPC), keeps and reverts a file against the checkpoint it counts from', async () => {
        const state = rewind();
        await state.openReview();
        await state.keep('src/a.ts');
        await state.revert('src/a.ts');
        await state.revert('src/b.ts', 4);

        assert.deepEqual(calls.filter(([method]) => method !== 'checkpointTurns' && method !== 'reviewChanges').map(call => call.slice(0, 4)), [
            ['keepChange', 'chat-1', '/work/space', 'src/a.ts'],
            ['revertChange', 'chat-1', '/work/space', 0],
            ['revertChange', 'chat-1', '/work/space', 4]
        ]);
        assert.deepEqual(calls.find(([method]) => method === 'reviewChanges'), ['reviewChanges', 'chat-1', '/work/space', null, null]);
        assert.equal(state.restored?.restoreId, 'restore-2', 'a revert is undone like a restore');
    });

    it('says why when there is no workspace to restore in', async () => {
        const state = new ChatRewindState({
            service: fakeService(calls, []), chatId: async () => 'chat-1', workspacePath: () => undefined,
            onEvents: () => ({ dispose: () => undefined }), update: () => undefined
        });
        await state.ask(0);
        assert.match(state.question?.problem ?? '', /Open a workspace folder/);
        assert.deepEqual(calls, []);
    });
});

describe('ChatTranscript and an external agent\'s changes on disk', () => {
    it('shows the files changed during the turn on the answer of that request, after it finished', () => {
        const transcript = new ChatTranscript();
        transcript.beginTurn('do it');
        transcript.apply({ type: 'RequestStarted', requestId: 'r1' });
        transcript.apply({ type: 'Finished', requestId: 'r1', stopReason: 'end_turn' });
        const answer = transcript.messages[1];
        const revision = answer.revision;

        const changed = transcript.apply({ type: 'WorkspaceChanges', requestId: 'r1', turn: 0, files: [{ path: 'made.txt', kind: 'added', diff: '+x\n' }] });

        assert.equal(changed, true);
        assert.deepEqual(answer.diskChanges, { turn: 0, files: [{ path: 'made.txt', kind: 'added', diff: '+x\n' }] });
        assert.ok(answer.revision > revision);
        assert.equal(transcript.apply({ type: 'WorkspaceChanges', requestId: 'unknown', turn: 0, files: [] }), false);
    });
});
