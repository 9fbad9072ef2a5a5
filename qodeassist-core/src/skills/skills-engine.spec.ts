import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultSkillRoots, SkillsEngine } from './skills-engine';

describe('SkillsEngine', () => {
    let base: string;
    let workspace: string;
    let home: string;
    const skill = (dir: string, name: string, frontmatter: string, body = 'Do the thing.') => {
        mkdirSync(join(dir, name), { recursive: true });
        writeFileSync(join(dir, name, 'SKILL.md'), `---\n${frontmatter}\n---\n${body}\n`);
    };

    beforeEach(() => {
        base = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-skills-')));
        workspace = join(base, 'ws');
        home = join(base, 'home');
        mkdirSync(workspace, { recursive: true });
    });
    afterEach(() => rmSync(base, { recursive: true, force: true }));

    const engine = (maxBodyChars?: number) => new SkillsEngine(defaultSkillRoots(workspace, home), { workspace, maxBodyChars });

    it('discovers skills from all four roots, the project winning a name clash', () => {
        skill(join(workspace, '.qodeassist', 'skills'), 'release', 'name: release\ndescription: Project release steps', 'project body');
        skill(join(workspace, '.claude', 'skills'), 'review', 'name: review\ndescription: Review code');
        skill(join(home, '.qodeassist', 'skills'), 'release', 'name: release\ndescription: User release steps', 'user body');
        skill(join(home, '.claude', 'skills'), 'explain', 'name: explain\ndescription: Explain code');
        const skills = engine();
        assert.deepEqual(skills.all.map(s => [s.name, s.scope]), [['release', 'project'], ['review', 'project'], ['explain', 'user']]);
        assert.equal(skills.get('release')?.body, 'project body');
        assert.deepEqual(skills.issues, []);
    });

    it('parses the optional fields and always-on skills', () => {
        skill(join(home, '.qodeassist', 'skills'), 'style', 'name: style\ndescription: House style\nlicense: MIT\ncompatibility: any\nallowed-tools: read_file, search_project\nmetadata:\n  always-on: true\n  owner: team', 'Use tabs.');
        skill(join(home, '.qodeassist', 'skills'), 'deploy', 'name: deploy\ndescription: Deploy the app\nallowed-tools: [build_project]');
        const skills = engine();
        const style = skills.get('style')!;
        assert.deepEqual([style.license, style.compatibility, style.allowedTools, style.alwaysOn, style.metadata.owner], ['MIT', 'any', ['read_file', 'search_project'], true, 'team']);
        assert.deepEqual(skills.get('deploy')?.allowedTools, ['build_project']);
        assert.equal(skills.catalog(), 'Skills are instructions for particular tasks. When one fits the request, call load_skill with its name first.\n- deploy: Deploy the app');
        assert.equal(skills.alwaysOnText(), '<skill name="style">\nUse tabs.\n</skill>');
    });

    it('reports invalid skills with the reason and loads the rest', () => {
        const dir = join(home, '.qodeassist', 'skills');
        skill(dir, 'ok', 'name: ok\ndescription: Fine');
        skill(dir, 'Bad_Name', 'name: Bad_Name\ndescription: x');
        skill(dir, 'mismatch', 'name: other\ndescription: x');
        skill(dir, 'long', `name: long\ndescription: ${'d'.repeat(1025)}`);
        skill(dir, 'broken', 'name: broken\ndescription: [unclosed');
        mkdirSync(join(dir, 'nofront'), { recursive: true });
        writeFileSync(join(dir, 'nofront', 'SKILL.md'), '# no frontmatter');
        const skills = engine();
        assert.deepEqual(skills.all.map(s => s.name), ['ok']);
        assert.deepEqual(skills.issues.map(issue => [issue.path.split('/').slice(-2, -1)[0], issue.message]), [
            ['Bad_Name', 'name: name must be 1–64 characters of a–z, 0–9 and "-"'],
            ['broken', skills.issues[1].message],
            ['long', 'description: description is longer than 1024 characters'],
            ['mismatch', 'name "other" must equal its folder name "mismatch"'],
            ['nofront', 'SKILL.md must start with YAML frontmatter between --- lines']
        ]);
        assert.match(skills.issues[1].message, /^the frontmatter is not valid YAML/);
    });

    it('caps long bodies and says so through load_skill', async () => {
        skill(join(home, '.qodeassist', 'skills'), 'huge', 'name: huge\ndescription: Big', 'x'.repeat(100));
        const skills = engine(10);
        assert.equal(skills.get('huge')?.body, 'x'.repeat(10));
        const tool = skills.loadSkillTool();
        assert.equal((await tool.run({ name: 'huge' }, undefined as never)).content,
            `${'x'.repeat(10)}\n[… 90 characters cut here; a skill is loaded up to 10 characters; files the skill names can be read with read_file]`);
        assert.match((await tool.run({ name: 'nope' }, undefined as never)).content, /There is no skill "nope". Available: huge/);
    });

    it('turns /name into a skill-invocation block plus the rest of the message', () => {
        skill(join(home, '.qodeassist', 'skills'), 'review', 'name: review\ndescription: Review', 'Check for bugs.');
        const skills = engine();
        assert.deepEqual(skills.invoke('/review src/a.ts please'), [{ type: 'skill_invocation', name: 'review', body: 'Check for bugs.' }, { type: 'text', text: 'src/a.ts please' }]);
        assert.deepEqual(skills.invoke('/review'), [{ type: 'skill_invocation', name: 'review', body: 'Check for bugs.' }]);
        assert.equal(skills.invoke('/unknown x'), undefined);
        assert.equal(skills.invoke('no slash'), undefined);
    });

    it('drops a project skills root that leads outside the workspace', () => {
        const elsewhere = join(base, 'elsewhere');
        skill(elsewhere, 'sneaky', 'name: sneaky\ndescription: From outside');
        mkdirSync(join(workspace, '.qodeassist'), { recursive: true });
        symlinkSync(elsewhere, join(workspace, '.qodeassist', 'skills'));
        const skills = engine();
        assert.equal(skills.get('sneaky'), undefined);
        assert.deepEqual(skills.issues.map(issue => issue.message), ['the skills folder leads outside the workspace, so it is ignored']);
    });

    it('reloads when a skill is added', async () => {
        const dir = join(home, '.qodeassist', 'skills');
        mkdirSync(dir, { recursive: true });
        const skills = engine().start();
        try {
            const changed = new Promise<void>(resolve => skills.onDidChange(resolve));
            skill(dir, 'fresh', 'name: fresh\ndescription: New');
            await changed;
            assert.equal(skills.get('fresh')?.description, 'New');
        } finally {
            skills.dispose();
        }
    });
});
