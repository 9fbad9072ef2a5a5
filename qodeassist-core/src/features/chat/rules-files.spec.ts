import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { WorkspaceFiles } from '../../tools/workspace-files';
import { findRulesFiles, MAX_RULES_FILE_BYTES, rulesLayers } from './rules-files';

describe('rules files: the repository\'s instructions for agents', () => {
    let base: string;
    let root: string;
    const write = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
    };
    const find = (relevant: string[], disabled: Parameters<typeof findRulesFiles>[2] = {}) =>
        findRulesFiles(new WorkspaceFiles([root], { useGitignore: true }), relevant, disabled);

    beforeEach(() => {
        base = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-rules-')));
        root = join(base, 'ws');
        write('AGENTS.md', '# Team rules\nUse tabs.\n');
        write('CLAUDE.md', 'Run npm test before you finish.\n');
        write('GEMINI.md', '# Team rules\nUse tabs.\n');
        write('src/AGENTS.md', 'In src: no default exports.\n');
        write('src/api/AGENTS.md', 'In the API: every handler validates with zod.\n');
        write('src/api/users.ts', 'export const users = [];\n');
        write('docs/AGENTS.md', 'Docs are in British English.\n');
        write('.github/copilot-instructions.md', 'Prefer small commits.\n');
        write('.github/instructions/tests.instructions.md', '---\napplyTo: "**/*.spec.ts"\n---\nTests read as specifications.\n');
        write('.github/instructions/api.instructions.md', '---\napplyTo: "src/api/**"\n---\nAPI errors are typed.\n');
        write('.github/instructions/nowhere.instructions.md', 'No applyTo here.\n');
        write('.cursor/rules/always.mdc', '---\ndescription: house style\nalwaysApply: true\n---\nName things for their job.\n');
        write('.cursor/rules/sql.mdc', '---\nglobs: "**/*.sql"\n---\nUppercase SQL keywords.\n');
        write('.clinerules', 'Ask before adding a dependency.\n');
    });
    afterEach(() => rmSync(base, { recursive: true, force: true }));

    it('reads root files, the nearest nested AGENTS.md above each relevant file (root first), and instructions whose globs match', () => {
        const { used, skipped } = find(['src/api/users.ts']);
        assert.deepEqual(used.map(file => [file.kind, file.path, file.appliesTo]), [
            ['agents', 'AGENTS.md', ''],
            ['claude', 'CLAUDE.md', ''],
            ['copilot', '.github/copilot-instructions.md', ''],
            ['copilot', '.github/instructions/api.instructions.md', 'src/api/**'],
            ['cursor', '.cursor/rules/always.mdc', ''],
            ['cline', '.clinerules', ''],
            ['agents', 'src/AGENTS.md', 'files under src/'],
            ['agents', 'src/api/AGENTS.md', 'files under src/api/']
        ]);
        assert.equal(used.find(file => file.path === '.cursor/rules/always.mdc')?.text, 'Name things for their job.', 'frontmatter is not sent');
        const reasons = Object.fromEntries(skipped.map(entry => [entry.path, entry.reason]));
        assert.match(reasons['GEMINI.md'], /same text as AGENTS\.md/);
        assert.match(reasons['.github/instructions/tests.instructions.md'], /applies to \*\*\/\*\.spec\.ts/);
        assert.match(reasons['.github/instructions/nowhere.instructions.md'], /no applyTo/);
        assert.match(reasons['.cursor/rules/sql.mdc'], /applies to \*\*\/\*\.sql/);
        assert.ok(!used.some(file => file.path === 'docs/AGENTS.md'), 'a folder no relevant file is in is not read');
    });

    it('each kind turns off on its own', () => {
        const { used, skipped } = find(['src/api/users.ts'], { disabled: ['agents', 'cursor'] });
        assert.ok(!used.some(file => file.kind === 'agents' || file.kind === 'cursor'));
        assert.ok(used.some(file => file.path === 'GEMINI.md'), 'GEMINI.md is no longer a copy of a file used');
        assert.ok(skipped.some(entry => entry.path === 'src/api/AGENTS.md' && /turned off/.test(entry.reason)));
    });

    it('a .clinerules folder is read file by file', () => {
        rmSync(join(root, '.clinerules'));
        write('.clinerules/01-style.md', 'Style first.\n');
        write('.clinerules/02-tests.md', 'Then tests.\n');
        write('.clinerules/image.png', 'not rules');
        assert.deepEqual(find([]).used.filter(file => file.kind === 'cline').map(file => file.path), ['.clinerules/01-style.md', '.clinerules/02-tests.md']);
    });

    it('never reads through a link out of the workspace, an ignored file, a pipe or an oversized file: the secret is absent and each is listed', () => {
        const outside = join(base, 'outside-secret.md');
        writeFileSync(outside, 'SECRET-RULES-MARKER\n');
        rmSync(join(root, 'CLAUDE.md'));
        symlinkSync(outside, join(root, 'CLAUDE.md'));
        write('.qodeassistignore', 'docs/\n');
        write('docs/guide.md', 'guide');
        rmSync(join(root, 'src', 'AGENTS.md'));
        execFileSync('mkfifo', [join(root, 'src', 'AGENTS.md')]);
        write('src/api/AGENTS.md', 'x'.repeat(MAX_RULES_FILE_BYTES + 1));
        const { used, skipped } = find(['src/api/users.ts', 'docs/guide.md']);
        const sent = rulesLayers(used).map(layer => layer.text).join('\n');
        assert.ok(!sent.includes('SECRET-RULES-MARKER'));
        assert.ok(!used.some(file => ['CLAUDE.md', 'docs/AGENTS.md', 'src/AGENTS.md', 'src/api/AGENTS.md'].includes(file.path)), used.map(file => file.path).join(', '));
        const listed = skipped.map(entry => entry.path);
        assert.ok(listed.includes('CLAUDE.md') && listed.includes('docs/AGENTS.md') && listed.includes('src/api/AGENTS.md'), JSON.stringify(skipped));
    });

    it('each file is its own layer, named for the manifest, saying where it applies', () => {
        const layers = rulesLayers(find(['src/api/users.ts']).used);
        assert.equal(layers[0].name, 'rules: AGENTS.md');
        assert.match(layers.at(-1)!.text, /^Instructions from the project's src\/api\/AGENTS\.md \(for files under src\/api\/\); .*\n\nIn the API: every handler validates with zod\.$/);
    });
});
