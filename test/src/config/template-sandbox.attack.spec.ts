import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigFixture } from './config-fixture';

const BIN = join(__dirname, '..', '..', '..', 'qodeassist-core', 'bin', 'qodeassist-bench.js');

/** A nunjucks string literal holding JavaScript that writes `marker` (the table of payloads is qodeassist-core/src/prompt/template-sandbox.attack.spec.ts). */
function payload(marker: string): string {
    const fs = '(process.getBuiltinModule ? process.getBuiltinModule("fs") : process.mainModule.require("fs"))';
    return `'${fs}.writeFileSync(${JSON.stringify(marker)}, "x")'`;
}

describe('template sandbox: hostile agent files through the configuration loader and qodeassist-bench validate', function () {
    this.timeout(30_000);
    const fixture = new ConfigFixture();
    const marker = join(fixture.root, 'marker');
    let userAgent: string;
    let userPartial: string;
    let projectAgent: string;
    let projectPartial: string;
    before(() => {
        userAgent = fixture.user_('agents/evil-prompt.toml', ['schema_version = 1', 'name = "evil-prompt"', 'extends = "claude-chat"',
            `system_prompt = """{{ range.constructor(${payload(marker)})() }}"""`, ''].join('\n'));
        userPartial = fixture.user_('partials/evil-user.njk', `{% set k = "__pro" ~ "to__" %}\n\n{{ range[k].constructor(${payload(marker)})() }}`);
        projectAgent = fixture.project_('agents/evil-body.toml', ['schema_version = 1', 'name = "evil-body"', 'extends = "claude-chat"', '', '[body]',
            'messages = "{% include \'evil.njk\' %}"', ''].join('\n'));
        projectPartial = fixture.project_('partials/evil.njk', `[\n{{ cycler().next.constructor(${payload(marker)})() }}]`);
    });
    after(() => fixture.dispose());

    it('the loader reports each hostile file as an error with file and line, and no payload runs', () => {
        const configuration = fixture.load();
        const issue = (file: string) => configuration.issues.find(candidate => candidate.file === file);
        assert.deepEqual({ ...issue(userAgent) }, {
            severity: 'error', file: userAgent, line: 4, field: 'system_prompt',
            message: 'system_prompt template: member access to "constructor" is not allowed in templates; templates read data only (template line 1)',
            fix: 'remove the "constructor" lookup; read fields of ctx, model, agent and tools instead'
        });
        assert.deepEqual([issue(userPartial)?.line, issue(userPartial)?.message],
            [3, 'partial "evil-user.njk": member access to "__proto__" is not allowed in templates; templates read data only']);
        assert.deepEqual([issue(projectAgent)?.line, issue(projectAgent)?.field, issue(projectAgent)?.message], [6, 'body.messages',
            'body.messages: partial "evil.njk" line 2: member access to "constructor" is not allowed in templates; templates read data only']);
        assert.deepEqual([issue(projectPartial)?.line, issue(projectPartial)?.message],
            [2, 'partial "evil.njk": member access to "constructor" is not allowed in templates; templates read data only']);
        assert.equal(configuration.agents.has('evil-prompt') || configuration.agents.has('evil-body'), false);
        assert.equal(existsSync(marker), false, 'a payload ran');
    });

    it('qodeassist-bench validate, trusting the workspace, exits 1 naming file:line, and no payload runs', async () => {
        const run = await new Promise<{ code: number | null; stdout: string }>(resolve => {
            const child = spawn(process.execPath, [BIN, 'validate', '--workspace', fixture.workspace, '--config-dir', fixture.user, '--trust-workspace'], {
                cwd: fixture.workspace, env: { PATH: process.env.PATH, HOME: join(fixture.root, 'home') }
            });
            let stdout = '';
            child.stdout.on('data', chunk => { stdout += chunk; });
            child.on('close', code => resolve({ code, stdout }));
        });
        assert.equal(run.code, 1, run.stdout);
        const lines = run.stdout.split('\n');
        for (const expected of [
            `${userAgent}:4 [system_prompt]: error: system_prompt template: member access to "constructor"`,
            `${userPartial}:3: error: partial "evil-user.njk": member access to "__proto__"`,
            `${projectAgent}:6 [body.messages]: error: body.messages: partial "evil.njk" line 2: member access to "constructor"`,
            `${projectPartial}:2: error: partial "evil.njk": member access to "constructor"`
        ]) {
            assert.ok(lines.some(line => line.startsWith(expected)), `missing ${expected} in\n${run.stdout}`);
        }
        assert.equal(existsSync(marker), false, 'a payload ran');
    });
});
