import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderSync } from './body-template';
import { createTemplateEnvironment, PartialError } from './partial-loader';
import { TEMPLATE_LIMITS } from './template-limits';
import { isTemplateSyntaxError } from './template-nodes';
import { compileSandboxedTemplate, TemplateSandboxError } from './template-sandbox';

/**
 * Ten thousand templates built from a grammar of every nunjucks construct, with hostile text (quotes,
 * backslashes, backticks, `${}`, line separators, __proto__, constructor, JavaScript that writes a
 * marker file) in every position: names, literals, keys, include names, filter and test names, macro
 * parameters. Each renders or is refused with a typed error; none runs code or changes a prototype.
 */

const TEMPLATES = 10_000;
const SEED = 0x5eed_2026;

/** Deterministic: the same templates on every run (mulberry32). */
function random(seed: number): () => number {
    let state = seed;
    return () => {
        state = (state + 0x6d2b79f5) | 0;
        let t = Math.imul(state ^ (state >>> 15), 1 | state);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

class Grammar {
    private readonly hostile: string[];
    private readonly names: string[];
    private readonly partials = ['p.njk', 'm.njk', 'self.njk', 'hostile.njk', 'missing.njk', '../outside.njk', '/etc/passwd', 'a"b.njk', 'p.njk\\', '${x}.njk'];
    private readonly filters = ['dump', 'json', 'join', 'length', 'upper', 'lower', 'default', 'replace', 'sort', 'first', 'last', 'list', 'string', 'int',
        'reverse', 'batch', 'slice', 'sum', 'select', 'reject', 'selectattr', 'groupby', 'dictsort', 'truncate', 'indent', 'center', 'title', 'safe', 'escape',
        'valueOf', 'constructor', 'toString', '__proto__', 'hasOwnProperty', 'a"b', 'x.y'];
    private readonly tests = ['defined', 'undefined', 'none', 'number', 'string', 'odd', 'even', 'divisibleby', 'eq', 'sameas', 'truthy', 'iterable', 'mapping',
        'constructor', 'valueOf', '__proto__', 'a"b'];
    private readonly methods = ['push', 'join', 'slice', 'concat', 'split', 'replace', 'repeat', 'padStart', 'at', 'flat', 'toString', 'hasOwnProperty', 'next',
        'call', 'apply', 'bind', 'constructor', '__proto__', '__defineGetter__', 'valueOf', 'map', 'sub', 'prototype'];

    constructor(private readonly next: () => number, marker: string) {
        const js = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`;
        const builtin = `process.getBuiltinModule("fs").writeFileSync(${JSON.stringify(marker)}, "x")`;
        this.hostile = ['"', '\'', '"),x;//', '`', '${x}', `\${${js}}`, '\u2028', '\u2029', '\\', '\\"', '__proto__', 'constructor', 'prototype', '\n', '\r\n',
            `");${js};//`, `');${builtin};//`, `\`+${js}+\``, `*/${js}/*`, 'a"b', 'x\'y', '{{', '%}', '#}', 'ok', '', '\0'];
        this.names = ['a', 'x', 'y', 'loop', 'caller', 'range', 'cycler', 'joiner', 'ctx', 'super', '_', 'n1', 'constructor', '__proto__', 'process',
            'require', 'globalThis', 'Function', 'valueOf', 'toString', 'a"b', 'a\'b', 'a\\b', 'x$y', `a");${js};//`, 'm'];
    }

    private pick<T>(items: readonly T[]): T {
        return items[Math.floor(this.next() * items.length)];
    }

    private chance(p: number): boolean {
        return this.next() < p;
    }

    name(): string {
        return this.chance(0.85) ? this.pick(['a', 'x', 'y', 'm', 'item', 'out']) : this.pick(this.names);
    }

    private text(): string {
        const pick = () => {
            const text = this.pick(this.hostile);
            // Template delimiters inside text mostly make a syntax error; keep some, so the lexer's handling is covered too.
            return /[{%#]/.test(text) && this.chance(0.8) ? 'ok' : text;
        };
        return Array.from({ length: 1 + Math.floor(this.next() * 3) }, pick).join('');
    }

    /** A string literal, escaped correctly or not: both must be safe. */
    literal(): string {
        const quote = this.pick(['"', '\'']);
        const body = this.text();
        return this.chance(0.9) ? quote + body.replace(/\\/g, '\\\\').split(quote).join(`\\${quote}`) + quote : quote + body + quote;
    }

    private number(): string {
        return this.pick(['0', '1', '2', '3', '-1', '0.5', '100', '1000000000', '7']);
    }

    private args(depth: number): string {
        const count = Math.floor(this.next() * 3);
        const positional = Array.from({ length: count }, () => this.expr(depth + 1));
        if (this.chance(0.2)) {
            positional.push(`${this.name()}=${this.expr(depth + 1)}`);
        }
        return positional.join(', ');
    }

    expr(depth = 0): string {
        if (depth > 3) {
            return this.pick([this.literal(), this.number(), this.name(), 'ctx.list', 'ctx.evil']);
        }
        const d = depth + 1;
        switch (Math.floor(this.next() * 22)) {
            case 0: return this.literal();
            case 1: return this.number();
            case 2: return this.pick(['true', 'false', 'none', 'null']);
            case 3: return this.name();
            case 4: return `${this.expr(d)}.${this.pick([...this.names, ...this.methods])}`;
            case 5: return `${this.expr(d)}[${this.chance(0.5) ? this.literal() : this.expr(d)}]`;
            case 6: return `${this.pick(['range', 'cycler', 'joiner', 'm', 'caller', 'super', this.name()])}(${this.args(d)})`;
            case 7: return `${this.expr(d)}.${this.pick(this.methods)}(${this.args(d)})`;
            case 8: return `${this.expr(d)} | ${this.pick(this.filters)}${this.chance(0.5) ? `(${this.args(d)})` : ''}`;
            case 9: return `${this.expr(d)} is ${this.chance(0.3) ? 'not ' : ''}${this.pick(this.tests)}${this.chance(0.3) ? `(${this.expr(d)})` : ''}`;
            case 10: return `${this.expr(d)} ${this.pick(['+', '-', '*', '/', '//', '%', '**', '~', '==', '!=', '===', '<', '>=', 'and', 'or', 'in'])} ${this.expr(d)}`;
            case 11: return `not ${this.expr(d)}`;
            case 12: return `${this.expr(d)} if ${this.expr(d)}${this.chance(0.5) ? ` else ${this.expr(d)}` : ''}`;
            case 13: return `[${this.args(d)}]`;
            case 14: return `{${Array.from({ length: Math.floor(this.next() * 3) }, () => `${this.chance(0.6) ? this.literal() : this.name()}: ${this.expr(d)}`).join(', ')}}`;
            case 15: return `(${this.expr(d)})`;
            case 16: return `range(${this.number()})`;
            case 17: return `ctx.evil.${this.pick(['__proto__', 'constructor', 'polluted', 'toJSON', 'x'])}`;
            case 18: return `${this.expr(d)} | select(${this.literal()})`;
            case 19: return `-${this.expr(d)}`;
            case 20: return this.pick(['ctx.list', 'ctx.evil', 'ctx.text', 'loop.index', 'caller()']);
            default: return `${this.expr(d)} | sort(false, false, ${this.literal()})`;
        }
    }

    private block(depth: number): string {
        return Array.from({ length: 1 + Math.floor(this.next() * 3) }, () => this.statement(depth + 1)).join('');
    }

    private open(): string {
        return this.pick(['{%', '{%-']);
    }

    private close(): string {
        return this.pick(['%}', '-%}']);
    }

    statement(depth = 0): string {
        const [o, c] = [this.open(), this.close()];
        if (depth > 3) {
            return this.chance(0.5) ? this.text() : `{{ ${this.expr(2)} }}`;
        }
        switch (Math.floor(this.next() * 20)) {
            case 0: return this.text();
            case 1: return `{{ ${this.expr()} }}`;
            case 2: return `${o} set ${this.name()} = ${this.expr()} ${c}`;
            case 3: return `${o} set ${this.name()} ${c}${this.block(depth)}${o} endset ${c}`;
            case 4: return `${o} for ${this.name()}${this.chance(0.3) ? `, ${this.name()}` : ''} in ${this.expr()} ${c}${this.block(depth)}${this.chance(0.3) ? `${o} else ${c}${this.block(depth)}` : ''}${o} endfor ${c}`;
            case 5: return `${o} if ${this.expr()} ${c}${this.block(depth)}${this.chance(0.4) ? `${o} elif ${this.expr()} ${c}${this.block(depth)}` : ''}${this.chance(0.4) ? `${o} else ${c}${this.block(depth)}` : ''}${o} endif ${c}`;
            case 6: return `${o} macro ${this.name()}(${this.chance(0.5) ? this.name() : ''}${this.chance(0.4) ? `${this.chance(0.5) ? ', ' : ''}${this.name()}=${this.expr(2)}` : ''}) ${c}${this.block(depth)}${o} endmacro ${c}`;
            case 7: return `${o} call${this.chance(0.3) ? `(${this.name()})` : ''} ${this.pick(['m', this.name()])}(${this.args(2)}) ${c}${this.block(depth)}${o} endcall ${c}`;
            case 8: return `${o} include ${this.chance(0.7) ? `"${this.pick(this.partials)}"` : this.expr()}${this.chance(0.3) ? ' ignore missing' : ''} ${c}`;
            case 9: return `${o} import ${this.chance(0.8) ? `"${this.pick(this.partials)}"` : this.literal()} as ${this.name()} ${c}`;
            case 10: return `${o} from "${this.pick(this.partials)}" import ${this.name()}${this.chance(0.5) ? ` as ${this.name()}` : ''} ${c}`;
            case 11: return `${o} extends ${this.chance(0.8) ? `"${this.pick(this.partials)}"` : this.literal()} ${c}`;
            case 12: return `${o} block ${this.name()} ${c}${this.block(depth)}${o} endblock ${c}`;
            case 13: return `${o} filter ${this.pick(this.filters)} ${c}${this.block(depth)}${o} endfilter ${c}`;
            case 14: return `${o} switch ${this.expr()} ${c}${o} case ${this.expr()} ${c}${this.block(depth)}${o} default ${c}${this.block(depth)}${o} endswitch ${c}`;
            case 15: return `{% raw %}${this.text()}{{ ${this.expr()} }}{% endraw %}`;
            case 16: return `{#- ${this.text()} -#}`;
            case 17: return `{{- ${this.expr()} -}}`;
            case 18: return `${o} set ${this.literal()} = 1 ${c}`;
            default: return `{{ ${this.expr()} }}`;
        }
    }

    template(): string {
        return Array.from({ length: 1 + Math.floor(this.next() * 4) }, () => this.statement()).join(this.pick(['', '\n', '  ']));
    }
}

/** What each prototype holds now: a template that changed one (added, removed or replaced a member) shows up as a difference. */
function snapshot(target: object): Map<string | symbol, unknown> {
    return new Map(Reflect.ownKeys(target).map(key => [key, Object.getOwnPropertyDescriptor(target, key)?.value ?? Object.getOwnPropertyDescriptor(target, key)?.get]));
}

describe('template sandbox: 10,000 generated hostile templates through the real loader', function () {
    this.timeout(60_000);
    const base = mkdtempSync(join(tmpdir(), 'qodeassist-template-generated-'));
    const partials = join(base, 'layer', 'partials');
    const marker = join(base, 'MARKER');
    after(() => rmSync(base, { recursive: true, force: true }));

    it('every template renders or is refused with a typed error; no payload runs, no prototype changes, nothing hangs', () => {
        const js = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`;
        mkdirSync(partials, { recursive: true });
        writeFileSync(join(partials, 'p.njk'), '{{ x }}{% set y = 1 %}{{ ctx.list | join(",") }}');
        writeFileSync(join(partials, 'm.njk'), '{% macro m(a, b="d") %}[{{ a }}{{ b }}{{ caller() if caller }}]{% endmacro %}{% set x = 2 %}{% block a %}b{% endblock %}');
        writeFileSync(join(partials, 'self.njk'), '{% include "self.njk" %}');
        writeFileSync(join(partials, 'hostile.njk'), `{{ range.constructor("${js.replace(/"/g, '\\"')}")() }}`);
        writeFileSync(join(base, 'outside.njk'), `{{ "${marker}" }}`);
        const objectBefore = snapshot(Object.prototype);
        const arrayBefore = snapshot(Array.prototype);
        const functionBefore = snapshot(Function.prototype);
        const stringBefore = snapshot(String.prototype);
        const grammar = new Grammar(random(SEED), marker);
        const limits = { ...TEMPLATE_LIMITS, MAX_LOOP_ITERATIONS: 20_000, MAX_RENDER_STEPS: 200_000, MAX_RENDER_MILLISECONDS: 2_000, MAX_TEXT_LENGTH: 4 * 1024 * 1024 };
        const outcomes = { rendered: 0, sandbox: 0, partial: 0, syntax: 0 };
        const started = Date.now();
        for (let index = 0; index < TEMPLATES; index++) {
            const source = grammar.template();
            const variables = {
                ctx: { list: [3, 1, 2], text: 'a"b\u2028', evil: JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 1}}, "toJSON": "x"}') },
                x: '"x"', m: 'not a macro'
            };
            try {
                renderSync(compileSandboxedTemplate(source, createTemplateEnvironment([partials], limits), `generated-${index}`), variables);
                outcomes.rendered++;
            } catch (error) {
                if (error instanceof TemplateSandboxError) {
                    outcomes.sandbox++;
                } else if (error instanceof PartialError) {
                    outcomes.partial++;
                } else if (isTemplateSyntaxError(error)) {
                    outcomes.syntax++;
                } else {
                    assert.fail(`template ${index} failed with an untyped error ${String(error)}:\n${source}`);
                }
            }
            assert.equal(existsSync(marker), false, `template ${index} ran its payload:\n${source}`);
        }
        assert.deepEqual(snapshot(Object.prototype), objectBefore, 'Object.prototype changed');
        assert.deepEqual(snapshot(Array.prototype), arrayBefore, 'Array.prototype changed');
        assert.deepEqual(snapshot(Function.prototype), functionBefore, 'Function.prototype changed');
        assert.deepEqual(snapshot(String.prototype), stringBefore, 'String.prototype changed');
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
        // The grammar must exercise every outcome, or it tests less than it claims.
        for (const [outcome, count] of Object.entries(outcomes)) {
            assert.ok(count > 100, `only ${count} templates ended as ${outcome}: ${JSON.stringify(outcomes)}`);
        }
        assert.ok(Date.now() - started < 55_000, `took ${Date.now() - started} ms`);
    });
});
