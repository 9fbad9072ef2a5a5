import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { ConfigFixture } from './config-fixture';
import { GOLDEN_DIR } from './golden-bodies';

const AGENTS_DIR = join(GOLDEN_DIR, '..');

/** Line-level edits of a valid profile: the kinds of damage hand editing does. */
const mutation = fc.oneof(
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.oneof(
        fc.string(),
        fc.constantFrom('modle = "x"', 'context_window = -1', 'extends = "nope"', '[body]\nx = "{{ oops"', 'max_tokens = "{{ 1 +"',
            'enable_tools = "yes"', '[match]\nfile = "*.ts"', 'schema_version = 9', 'messages = "{% include \'../x\' %}"', 'system_prompt = "{{ agent_role(\'x\') }}"')
    ) }),
    fc.record({ kind: fc.constant('replace-value' as const), at: fc.nat(), text: fc.oneof(fc.string(), fc.constantFrom('[', '"', '{{', '{%', '0', 'true', '[]')) })
);

function apply(text: string, edits: Array<{ kind: string; at: number; text?: string }>): string {
    let lines = text.split('\n');
    for (const edit of edits) {
        const at = lines.length === 0 ? 0 : edit.at % lines.length;
        switch (edit.kind) {
            case 'delete': lines.splice(at, 1); break;
            case 'duplicate': lines.splice(at, 0, lines[at] ?? ''); break;
            case 'truncate': lines = lines.slice(0, at); break;
            case 'insert': lines.splice(at, 0, edit.text ?? ''); break;
            case 'replace-value': lines[at] = (lines[at] ?? '').replace(/=.*/, `= ${edit.text}`); break;
        }
    }
    return lines.join('\n');
}

describe('configuration loading under random damage', () => {
    const sources = ['claude-chat.toml', 'ollama-fim-qwen25coder.toml', 'gemini-base.toml', 'llamacpp-fim.toml']
        .map(file => readFileSync(join(AGENTS_DIR, file), 'utf8'));

    it('always yields a valid profile or a typed issue for the file — never an exception', () => {
        const fixture = new ConfigFixture();
        try {
            fc.assert(fc.property(fc.constantFrom(...sources), fc.array(mutation, { minLength: 1, maxLength: 4 }), (source, edits) => {
                const text = apply(source, edits).replace(/^name = ".*"$/m, 'name = "mutant"');
                const path = fixture.user_('agents/mutant.toml', text);
                const configuration = fixture.load();
                const issues = configuration.issues.filter(issue => issue.file === path);
                const loaded = configuration.agents.has('mutant') || configuration.abstractAgents.has('mutant');
                assert.ok(loaded || issues.some(issue => issue.severity === 'error'),
                    `neither loaded nor reported:\n${text}\n${JSON.stringify(issues)}`);
                for (const issue of issues) {
                    assert.ok(issue.message.length > 0);
                }
            }), { numRuns: 150 });
        } finally {
            fixture.dispose();
        }
    });
});
