import * as assert from 'node:assert/strict';
import { planOfTodoList, toolCallView } from './tool-call-view';

describe('toolCallView', () => {
    const cwd = '/work/project';

    it('a read names the file and its lines, and points the client at the first line', () => {
        assert.deepEqual(toolCallView('read_file', { path: 'src/a.ts', start_line: 10, end_line: 20 }, cwd),
            { kind: 'read', title: 'Read src/a.ts (lines 10–20)', locations: [{ path: '/work/project/src/a.ts', line: 10 }] });
    });

    it('edits, commands and searches get their own kinds and titles', () => {
        assert.deepEqual(toolCallView('edit_file', { path: 'a.ts', old_text: 'x', new_text: 'y' }, cwd), { kind: 'edit', title: 'Edit a.ts', locations: [{ path: '/work/project/a.ts' }] });
        assert.deepEqual(toolCallView('execute_terminal_command', { command: 'npm test' }, cwd), { kind: 'execute', title: 'Run npm test', locations: [] });
        assert.deepEqual(toolCallView('search_project', { query: 'port', glob: 'src/**' }, cwd), { kind: 'search', title: 'Search for "port" in src/**', locations: [] });
    });

    it('while the arguments stream (none yet) the title is generic; an absolute path stays as it is', () => {
        assert.equal(toolCallView('create_file', {}, cwd).title, 'Create a file');
        assert.deepEqual(toolCallView('create_file', { path: '/elsewhere/b.ts' }, cwd).locations, [{ path: '/elsewhere/b.ts' }]);
    });

    it('a tool that is not QodeAssist\'s own (an MCP server\'s) keeps its name and the neutral kind', () => {
        assert.deepEqual(toolCallView('github__create_issue', { title: 'x' }, cwd), { kind: 'other', title: 'github__create_issue', locations: [] });
    });
});

describe('planOfTodoList', () => {
    it('reads the todo tool\'s list as plan entries, done ones completed', () => {
        assert.deepEqual(planOfTodoList('[x] 1. Read the parser\n[ ] 2. Fix the off-by-one'), [
            { content: 'Read the parser', priority: 'medium', status: 'completed' },
            { content: 'Fix the off-by-one', priority: 'medium', status: 'pending' }
        ]);
    });

    it('anything else (an empty list, an error) is no plan', () => {
        assert.equal(planOfTodoList('The todo list is empty.'), undefined);
        assert.equal(planOfTodoList('There is no todo item 3.'), undefined);
    });
});
