import * as assert from 'node:assert/strict';
import { HistoryMessage } from './conversation-history';
import { protectedCalls, renderWorkingSet, workingSetOf } from './working-set';

let nextId = 0;
/** One tool round: the call and its result. */
function round(name: string, input: Record<string, unknown>, content: string, isError = false): HistoryMessage[] {
    const id = `c${++nextId}`;
    return [
        { role: 'assistant', blocks: [{ type: 'tool_use', id, name, input }] },
        { role: 'user', blocks: [{ type: 'tool_result', toolUseId: id, name, content, isError }] }
    ];
}
const say = (text: string): HistoryMessage => ({ role: 'user', blocks: [{ type: 'text', text }] });

describe('working set', () => {
    beforeEach(() => { nextId = 0; });

    it('a conversation without tool work has none', () => {
        const { text, changedAt } = workingSetOf([say('hello'), { role: 'assistant', blocks: [{ type: 'text', text: 'hi' }] }]);
        assert.equal(text, '');
        assert.equal(changedAt, -1);
    });

    it('keeps the goal, the files, the latest build and problems, todos and the next repair; a newer build supersedes', () => {
        const history: HistoryMessage[] = [
            say('Make the parser accept trailing commas'),
            ...round('read_file', { path: 'src/parser.ts' }, 'export function parse() {}'),
            ...round('edit_file', { path: 'src/parser.ts', old_text: 'a', new_text: 'allowTrailingComma = true;\nb' }, 'Edited src/parser.ts'),
            ...round('build_project', {}, 'The build failed (exit code 2).\nProblems (1 errors, 0 warnings):\nsrc/parser.ts:12:5: error: Cannot find name \'x\'.\nOutput (tail):\n…', true),
            say('also keep the old API'),
            ...round('todo', { action: 'add' }, '[x] 1. parse\n[ ] 2. keep the old API'),
            ...round('build_project', {}, 'The build failed (exit code 2).\nProblems (1 errors, 0 warnings):\nsrc/api.ts:3:1: error: Missing export.\nOutput (tail):\n…', true)
        ];
        const { set, text, changedAt, superseded } = workingSetOf(history);
        assert.equal(set.goal, 'Make the parser accept trailing commas');
        assert.deepEqual(set.redirections, ['also keep the old API']);
        assert.deepEqual(set.filesRead, ['src/parser.ts']);
        assert.deepEqual(set.filesWritten.map(file => [file.path, file.change]), [['src/parser.ts', 'edited: −1 +2 lines, now "allowTrailingComma = true;"']]);
        assert.equal(set.build?.ok, false);
        assert.match(set.build!.summary, /src\/api\.ts:3:1: error: Missing export/);
        assert.doesNotMatch(text, /Cannot find name/, 'the superseded failure is gone');
        assert.deepEqual(set.openTodos, ['2. keep the old API']);
        assert.equal(set.nextRepair, 'src/api.ts:3:1: error: Missing export.');
        assert.equal(changedAt, history.length - 1);
        assert.deepEqual([...superseded], ['c3']);
        assert.deepEqual([...protectedCalls(set)].sort(), ['c2', 'c5']);
        assert.match(text, /^<working_set>\nGoal: Make the parser[\s\S]*Latest build: FAILED\n[\s\S]*Next to repair: src\/api\.ts:3:1/);
    });

    it('a passing build and clean problems clear the repair target; the block only changes when the set does', () => {
        const history: HistoryMessage[] = [
            say('fix it'),
            ...round('build_project', {}, 'The build failed.\nsrc/a.ts:1:1: error: boom', true),
            ...round('build_project', {}, 'The build succeeded.\nOutput (tail):\n'),
            ...round('get_diagnostics', {}, 'No errors reported.'),
            ...round('search_project', { query: 'x' }, 'nothing')
        ];
        const { set, changedAt } = workingSetOf(history);
        assert.equal(set.nextRepair, undefined);
        assert.equal(set.build?.ok, true);
        assert.equal(set.diagnostics?.ok, true);
        assert.equal(changedAt, 6, 'the search changed nothing: the block stays after the problems');
        assert.match(renderWorkingSet(set), /Latest build: succeeded\nLatest problems: none/);
    });
});
