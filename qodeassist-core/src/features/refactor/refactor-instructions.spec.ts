import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QodeAssistError } from '../../wire/error-info';
import { InstructionLibrary } from './refactor-instructions';

describe('InstructionLibrary', () => {
    let root: string;
    let user: string;
    let project: string;
    let library: InstructionLibrary;
    beforeEach(() => {
        root = mkdtempSync(join(tmpdir(), 'qa-instructions-'));
        user = join(root, 'home', '.qodeassist', 'instructions');
        project = join(root, 'ws', '.qodeassist', 'instructions');
        library = new InstructionLibrary({ user, project });
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('saves {id, name, body, version} as <id>.json and lists it back', async () => {
        const saved = await library.save({ name: 'Add JSDoc', body: '  Document every parameter.  ' });
        assert.equal(saved.id, 'add-jsdoc');
        assert.deepEqual(JSON.parse(readFileSync(join(user, 'add-jsdoc.json'), 'utf8')), { id: 'add-jsdoc', name: 'Add JSDoc', body: 'Document every parameter.', version: 1 });
        const { instructions, issues } = await library.list();
        assert.deepEqual(instructions.map(i => [i.name, i.scope]), [['Add JSDoc', 'user']]);
        assert.deepEqual(issues, []);
        assert.deepEqual(readdirSync(user), ['add-jsdoc.json'], 'no temporary file is left');
    });

    it('a project instruction shadows the user one with the same name', async () => {
        await library.save({ name: 'Tests', body: 'user body' });
        await library.save({ name: 'tests', body: 'project body' }, 'project');
        await library.save({ name: 'Other', body: 'x' });
        const { instructions } = await library.list();
        assert.deepEqual(instructions.map(i => [i.name, i.body, i.scope]), [['Other', 'x', 'user'], ['tests', 'project body', 'project']]);
    });

    it('edits in place, duplicates with a free name, deletes', async () => {
        const saved = await library.save({ name: 'Improve', body: 'v1' });
        await library.save({ id: saved.id, name: 'Improve', body: 'v2' });
        const copy = await library.duplicate(saved.id, 'user');
        const second = await library.duplicate(saved.id, 'user');
        assert.deepEqual([copy.name, second.name], ['Improve (copy)', 'Improve (copy 2)']);
        assert.equal((await library.get(saved.id, 'user')).body, 'v2');
        await library.delete(copy.id, 'user');
        assert.deepEqual((await library.list()).instructions.map(i => i.name), ['Improve', 'Improve (copy 2)']);
    });

    it('refuses an empty body, a second instruction of the same name, and a project save without a workspace', async () => {
        await assert.rejects(library.save({ name: 'X', body: '   ' }), (error: QodeAssistError) => error.info.category === 'Validation' && /body — the instruction text is empty/.test(error.message));
        await library.save({ name: 'Same', body: 'a' });
        await assert.rejects(library.save({ name: 'same', body: 'b' }), /already an instruction named "Same"/);
        await assert.rejects(new InstructionLibrary({ user }).save({ name: 'P', body: 'b' }, 'project'), /need an open workspace folder/);
    });

    it('reports a broken file with its path and the fix, and never overwrites it', async () => {
        mkdirSync(user, { recursive: true });
        writeFileSync(join(user, 'broken.json'), '{"id": "broken", "name": ');
        writeFileSync(join(user, 'wrong.json'), JSON.stringify({ id: 'wrong', name: 'W', body: 'b', version: 2 }));
        writeFileSync(join(user, 'moved.json'), JSON.stringify({ id: 'elsewhere', name: 'M', body: 'b', version: 1 }));
        await library.save({ name: 'broken', body: 'fine' });
        const { instructions, issues } = await library.list();
        assert.deepEqual(instructions.map(i => i.id), ['broken-2']);
        assert.deepEqual(issues.map(issue => issue.file.split('/').pop()), ['broken.json', 'moved.json', 'wrong.json']);
        assert.match(issues[0].message, /Fix the JSON; the file is left as it is/);
        assert.match(issues[2].message, /version: .*"version": 1/);
        assert.equal(readFileSync(join(user, 'broken.json'), 'utf8'), '{"id": "broken", "name": ');
    });
});
