import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfiguration } from '../agents/configuration-loader';
import { defaultConfigRoots } from '../config/config-layers';
import { renderSync } from './body-template';
import { createTemplateEnvironment } from './partial-loader';
import { CtxMessage, syntheticContext } from './template-context';
import { TEMPLATE_LIMITS, TemplateLimits } from './template-limits';
import { compileSandboxedTemplate, TemplateSandboxError } from './template-sandbox';

const render = (source: string, limits: Partial<TemplateLimits> = {}, variables: object = {}, partials: string[] = []) =>
    renderSync(compileSandboxedTemplate(source, createTemplateEnvironment(partials, { ...TEMPLATE_LIMITS, ...limits }), 'limits'), variables);

/** Asserts the render is refused for `limit`, the message naming it, and quickly. */
function refusedFor(limit: keyof TemplateLimits, run: () => unknown): void {
    const started = Date.now();
    assert.throws(run, (error: unknown) => error instanceof TemplateSandboxError && error.message.includes(limit) && error.fix.length > 0,
        `expected a refusal naming ${limit}`);
    assert.ok(Date.now() - started < 5000, `the ${limit} refusal took ${Date.now() - started} ms`);
}

describe('template limits: every render is bounded, and the refusal names the limit', () => {
    it('range(1000000000) is refused before the list is built (MAX_LIST_LENGTH)', () => {
        refusedFor('MAX_LIST_LENGTH', () => render('{% for i in range(1000000000) %}{% endfor %}'));
        refusedFor('MAX_LIST_LENGTH', () => render('{{ range(0, 1000000000000, 2) | length }}'));
    });

    it('doubling a string in a loop stops before the string is built (MAX_TEXT_LENGTH)', () => {
        refusedFor('MAX_TEXT_LENGTH', () => render('{% set s = "xx" %}{% for i in range(64) %}{% set s = s ~ s %}{% endfor %}{{ s | length }}'));
        refusedFor('MAX_TEXT_LENGTH', () => render('{% set s = "xx" %}{% for i in range(64) %}{% set s = s + s %}{% endfor %}'));
    });

    it('escaping a long text of & is sized before it is built (MAX_TEXT_LENGTH), however few characters the source has', () => {
        refusedFor('MAX_TEXT_LENGTH', () => render('{% set s = "&" %}{% for i in range(25) %}{% set s = s ~ s %}{% endfor %}{% set x = s | escape %}{{ x | length }}'));
        assert.equal(render('{{ "a<b" | escape }}'), 'a&lt;b');
    });

    it('a long text transformed over and over in a loop ends at MAX_TEXT_WORK, quickly, not after minutes', () => {
        refusedFor('MAX_TEXT_WORK', () => render('{% set s = "a" %}{% for i in range(22) %}{% set s = s + s %}{% endfor %}{% for i in range(400) %}{% set x = s | replace("a", "bb") %}{% endfor %}done'));
        refusedFor('MAX_TEXT_WORK', () => render('{% set s = "a" %}{% for i in range(24) %}{% set s = s ~ s %}{% endfor %}{% for i in range(1000) %}{% set x = s | upper %}{% endfor %}done'));
    });

    for (const [what, source] of [
        ['repeat', '{{ "ab".repeat(1000000000) }}'], ['padStart', '{{ "a".padStart(1000000000) }}'], ['padEnd', '{{ "a".padEnd(1000000000, "-") }}'],
        ['center', '{{ "a" | center(1000000000) }}'], ['indent', '{{ "a\\nb" | indent(1000000000) }}'], ['replace of ""', '{{ "abcdef" | replace("", "x".repeat(10000000)) }}'],
        ['replaceAll', '{{ "a".repeat(10000000).replaceAll("a", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb") }}'], ['join', '{{ range(1000000) | join("x".repeat(1000)) }}'],
        ['dump of a shared list', '{% set a = ["x".repeat(1000000)] %}{% for i in range(30) %}{% set a = [a, a] %}{% endfor %}{{ a | dump }}']
    ]) {
        it(`${what} is checked before its text is built (MAX_TEXT_LENGTH)`, () => refusedFor('MAX_TEXT_LENGTH', () => render(source)));
    }

    for (const [what, source] of [
        ['batch with a fill', '{{ [1] | batch(1000000000, "x") | length }}'], ['slice', '{{ [1] | slice(1000000000) | length }}'],
        ['flat of a shared list', '{% set a = [1] %}{% for i in range(40) %}{% set a = [a, a] %}{% endfor %}{{ a.flat(100) | length }}'],
        ['split', '{{ "x".repeat(10000000).split("") | length }}'], ['list of a long text', '{{ "x".repeat(10000000) | list | length }}'],
        ['push in a loop', '{% set a = [] %}{% for i in range(100) %}{% set _ = a.push(1, 2, 3) %}{% endfor %}']
    ]) {
        it(`${what} is checked before its list is built (MAX_LIST_LENGTH)`, () =>
            refusedFor('MAX_LIST_LENGTH', () => render(source, what === 'push in a loop' ? { MAX_LIST_LENGTH: 100 } : {})));
    }

    it('loop iterations are summed over all loops of a render (MAX_LOOP_ITERATIONS)', () => {
        refusedFor('MAX_LOOP_ITERATIONS', () => render('{% for i in range(1000) %}{% for j in range(1000) %}{% for k in range(1000) %}{% endfor %}{% endfor %}{% endfor %}'));
        assert.equal(render('{% for i in range(60) %}{% endfor %}{% for j in range(40) %}{% endfor %}ok', { MAX_LOOP_ITERATIONS: 100 }), 'ok');
        refusedFor('MAX_LOOP_ITERATIONS', () => render('{% for i in range(60) %}{% endfor %}{% for j in range(41) %}{% endfor %}', { MAX_LOOP_ITERATIONS: 100 }));
    });

    it('steps are counted over expressions, statements, macros and includes (MAX_RENDER_STEPS)', () => {
        refusedFor('MAX_RENDER_STEPS', () => render('{% for i in range(100) %}{{ 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 }}{% endfor %}', { MAX_RENDER_STEPS: 1000 }));
    });

    it('recursion through macros and includes stops (MAX_NESTING_DEPTH)', () => {
        refusedFor('MAX_NESTING_DEPTH', () => render('{% macro r(n) %}{{ r(n + 1) }}{% endmacro %}{{ r(0) }}'));
        const partials = mkdtempSync(join(tmpdir(), 'qodeassist-limits-'));
        try {
            writeFileSync(join(partials, 'self.njk'), 'x{% include "self.njk" %}');
            refusedFor('MAX_NESTING_DEPTH', () => render('{% include "self.njk" %}', {}, {}, [partials]));
        } finally {
            rmSync(partials, { recursive: true, force: true });
        }
    });

    it('a render that runs too long is stopped (MAX_RENDER_MILLISECONDS)', () => {
        refusedFor('MAX_RENDER_MILLISECONDS', () => render('{% for i in range(1000000) %}{% set s = "abc".repeat(200) | upper %}{% endfor %}', { MAX_RENDER_MILLISECONDS: 50 }));
    });

    it('the rendered text is bounded as it is written (MAX_TEXT_LENGTH)', () => {
        refusedFor('MAX_TEXT_LENGTH', () => render('{% for i in range(100) %}{{ big }}{% endfor %}', { MAX_TEXT_LENGTH: 10_000 }, { big: 'x'.repeat(1000) }));
    });

    it('text nested deeper than MAX_SYNTAX_DEPTH is refused at load, and so is text that overflows the parser', () => {
        refusedFor('MAX_SYNTAX_DEPTH', () => render(`{{ ${'('.repeat(300)}1${')'.repeat(300)} }}`));
        assert.throws(() => render(`{{ ${'['.repeat(20000)}${']'.repeat(20000)} }}`), (error: unknown) => error instanceof TemplateSandboxError);
    });

    it('ordinary big bodies render: a bundled chat agent with 200 messages of 20 KB each', () => {
        const bundled = defaultConfigRoots();
        const configuration = loadConfiguration({ bundledAgents: bundled.bundledAgents, bundledProviders: bundled.bundledProviders });
        const text = 'lorem "ipsum" \\ dolor\n'.repeat(1000).slice(0, 20_000);
        const history: CtxMessage[] = Array.from({ length: 200 }, (_, index) => ({ role: index % 2 ? 'assistant' : 'user', content: [{ type: 'text', text }] }));
        for (const name of ['claude-chat', 'openai-chat', 'gemini-chat', 'ollama-chat']) {
            const body = configuration.agents.get(name)!.renderBody({ ...syntheticContext(), history });
            const messages = (body.messages ?? body.contents) as unknown[];
            assert.equal(messages.length >= 200, true, `${name} rendered ${messages.length} messages`);
            assert.ok(JSON.stringify(body).length > 200 * 20_000, name);
        }
    });
});
