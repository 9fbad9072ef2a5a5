import * as assert from 'node:assert/strict';
import { PermissionRequest } from '../ports/permission-prompt';
import { permissionAnswer, permissionOptions, permissionQuestion } from './permission-question';

const edit: PermissionRequest = { tool: 'edit_file', permission: 'write', arguments: { path: 'src/a.ts', old_text: '1', new_text: '2' }, chatId: 'c' };
const protectedWrite: PermissionRequest = { tool: 'create_file', permission: 'write', arguments: { path: '.vscode/tasks.json', content: '{}' }, chatId: 'c', protectedPath: '.vscode/tasks.json' };

describe('permission questions over ACP', () => {
    it('offers allow once, always (for the session) and reject; a protected write has no "always"', () => {
        assert.deepEqual(permissionOptions(edit).map(option => [option.optionId, option.kind]), [['allow-once', 'allow_once'], ['allow-always', 'allow_always'], ['reject', 'reject_once']]);
        assert.deepEqual(permissionOptions(protectedWrite).map(option => option.kind), ['allow_once', 'reject_once']);
    });

    it('maps the answer: a cancelled or unknown one is a refusal, "always" on a protected write only allows once', () => {
        assert.equal(permissionAnswer({ outcome: { outcome: 'selected', optionId: 'allow-always' } }, edit), 'allow-chat');
        assert.equal(permissionAnswer({ outcome: { outcome: 'selected', optionId: 'reject' } }, edit), 'deny');
        assert.equal(permissionAnswer({ outcome: { outcome: 'cancelled' } }, edit), 'deny');
        assert.equal(permissionAnswer({ outcome: { outcome: 'selected', optionId: 'something-else' } }, edit), 'deny');
        assert.equal(permissionAnswer({ outcome: { outcome: 'selected', optionId: 'allow-always' } }, protectedWrite), 'allow-once');
    });

    it('shows the call as the client knows it, with the exact arguments and the diff it would make', () => {
        const question = permissionQuestion('s1', 'call_1', edit, '/w', 'const a = 1;\n');
        assert.deepEqual(question.toolCall, {
            toolCallId: 'call_1', kind: 'edit', title: 'Edit src/a.ts', locations: [{ path: '/w/src/a.ts' }], status: 'pending', rawInput: edit.arguments,
            content: [{ type: 'diff', path: '/w/src/a.ts', oldText: 'const a = 1;\n', newText: 'const a = 2;\n' }]
        });
        assert.equal(question.sessionId, 's1');
    });

    it('a protected write says why it is asked every time', () => {
        const content = permissionQuestion('s1', 'call_2', protectedWrite, '/w', undefined).toolCall.content ?? [];
        assert.deepEqual(content[0], { type: 'diff', path: '/w/.vscode/tasks.json', oldText: null, newText: '{}' });
        assert.match(JSON.stringify(content[1]), /writes to \.vscode\/tasks\.json, a configuration or ignore file: it is asked every time/);
    });
});
