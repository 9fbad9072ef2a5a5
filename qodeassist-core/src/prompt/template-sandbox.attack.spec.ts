import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as nunjucks from 'nunjucks';
import { renderSync } from './body-template';
import { createTemplateEnvironment } from './partial-loader';
import { SandboxedTemplate } from './template-environment';
import { parseTemplate } from './template-nodes';
import { TemplateSandboxError } from './template-policy';
import { compileSandboxedTemplate } from './template-sandbox';

const base = mkdtempSync(join(tmpdir(), 'qodeassist-template-attack-'));
const partials = join(base, 'partials');

/**
 * A nunjucks string literal holding JavaScript that writes `marker`: what every payload tries to run.
 * (The configuration loader and `qodeassist-bench validate` face the same payloads in test/src/config/template-sandbox.attack.spec.ts.)
 */
function payload(marker: string): string {
    const fs = '(process.getBuiltinModule ? process.getBuiltinModule("fs") : process.mainModule.require("fs"))';
    return `'${fs}.writeFileSync(${JSON.stringify(marker)}, "x")'`;
}

interface Attack {
    name: string;
    /** The template; `P` stands for the payload literal, `M` for the marker path as a literal. */
    template: string;
    /** What the refusal must name, or the harmless text the template renders instead. */
    refused: RegExp | { renders: string };
}

const CONSTRUCTOR = /member access to "constructor" is not allowed in templates; templates read data only/;

const ATTACKS: Attack[] = [
    { name: 'range.constructor', template: '{{ range.constructor(P)() }}', refused: CONSTRUCTOR },
    { name: 'cycler.constructor', template: '{{ cycler.constructor(P)() }}', refused: CONSTRUCTOR },
    { name: 'joiner.constructor', template: '{{ joiner.constructor(P)() }}', refused: CONSTRUCTOR },
    { name: 'cycler().next.constructor', template: '{{ cycler(1, 2).next.constructor(P)() }}', refused: CONSTRUCTOR },
    { name: 'joiner() result constructor', template: '{{ joiner(",").constructor(P)() }}', refused: CONSTRUCTOR },
    { name: 'calling joiner()\'s function through an alias', template: '{% set j = joiner() %}{{ j() }}', refused: /calling "j" is not allowed in templates/ },
    { name: 'loop.constructor.constructor', template: '{% for x in [1] %}{{ loop.constructor.constructor(P)() }}{% endfor %}', refused: CONSTRUCTOR },
    { name: 'caller.constructor inside a macro', template: '{% macro m() %}{{ caller.constructor(P)() }}{% endmacro %}{% call m() %}x{% endcall %}', refused: CONSTRUCTOR },
    { name: 'payload inside a call block', template: '{% macro m() %}{{ caller() }}{% endmacro %}{% call m() %}{{ range.constructor(P)() }}{% endcall %}', refused: CONSTRUCTOR },
    { name: 'macro argument default', template: '{% macro m(f = range.constructor(P)) %}{{ f() }}{% endmacro %}{{ m() }}', refused: CONSTRUCTOR },
    { name: 'string "".constructor.constructor', template: '{{ "".constructor.constructor(P)() }}', refused: CONSTRUCTOR },
    { name: 'string method "a".sub.call', template: '{{ "a".sub.call.constructor(P)() }}', refused: CONSTRUCTOR },
    { name: 'calling a string method outside the safe list', template: '{{ "a".sub.call(range) }}', refused: /calling "\.call" is not allowed in templates/ },
    { name: 'array [].map.constructor', template: '{{ [].map.constructor(P)() }}', refused: CONSTRUCTOR },
    { name: 'array [].constructor.constructor', template: '{{ [].constructor.constructor(P)() }}', refused: CONSTRUCTOR },
    { name: 'object literal ({}).constructor', template: '{{ ({}).constructor.constructor(P)() }}', refused: CONSTRUCTOR },
    { name: 'computed "constr" + "uctor"', template: '{{ range["constr" + "uctor"](P)() }}', refused: CONSTRUCTOR },
    { name: 'computed "constr" ~ "uctor"', template: '{{ range["constr" ~ "uctor"](P)() }}', refused: CONSTRUCTOR },
    { name: 'computed key through a filter', template: '{{ range["CONSTRUCTOR" | lower] }}', refused: CONSTRUCTOR },
    { name: 'computed key from a call', template: '{{ range[cycler("constructor").next()] }}', refused: /computed member name .* is not allowed in templates/ },
    { name: 'set alias of a constant key', template: '{% set k = "constr" ~ "uctor" %}{{ range[k](P)() }}', refused: CONSTRUCTOR },
    { name: 'set alias of a reversed key', template: '{% set k = "rotcurtsnoc" | reverse %}{% set f = range[k] %}{{ f(P)() }}', refused: CONSTRUCTOR },
    { name: 'set alias of the constructor', template: '{% set c = range.constructor %}{{ c(P)() }}', refused: CONSTRUCTOR },
    { name: 'loop over literal keys', template: '{% for k in ["a", "constructor"] %}{{ range[k](P)() }}{% endfor %}', refused: CONSTRUCTOR },
    { name: 'loop over dict keys', template: '{% for k, v in {"constructor": 1} %}{% set f = range[k] %}{{ f }}{% endfor %}', refused: CONSTRUCTOR },
    { name: 'key that only data decides (refused by the interpreter while rendering)', template: '{% for k in ctx.keys %}{% set f = ctx.history[k] %}{{ f }}{% endfor %}', refused: CONSTRUCTOR },
    { name: 'the bare name constructor', template: '{{ constructor.getOwnPropertyDescriptor(constructor.getPrototypeOf(range), "constructor").value(P)() }}', refused: /the name "constructor" is not allowed in templates/ },
    { name: '__proto__ member', template: '{{ range.__proto__.constructor(P)() }}', refused: /member access to "__proto__" is not allowed/ },
    { name: '__lookupGetter__', template: '{{ range.__lookupGetter__("__proto__").call(range) }}', refused: /member access to "__lookupGetter__" is not allowed/ },
    { name: '__proto__ pollution through a dict literal', template: '{{ {"__proto__": {"polluted": 1} } | dump }}', refused: /the key "__proto__" is not allowed in templates/ },
    { name: '__proto__ pollution through set', template: '{% set __proto__ = {"polluted": 1} %}', refused: /the name "__proto__" is not allowed/ },
    { name: 'prototype member', template: '{{ ctx.history.prototype }}', refused: /member access to "prototype" is not allowed/ },
    { name: 'process global', template: '{{ process.mainModule.require("fs").writeFileSync(M, "x") }}', refused: /"process" is not available in templates/ },
    { name: 'global.process', template: '{{ global.process.mainModule.require("fs").writeFileSync(M, "x") }}', refused: /"global" is not available in templates/ },
    { name: 'require', template: '{{ require("fs").writeFileSync(M, "x") }}', refused: /"require" is not available in templates/ },
    { name: 'Function', template: '{{ Function(P)() }}', refused: /"Function" is not available in templates/ },
    { name: 'filter | safe on the constructor', template: '{{ (range.constructor | safe)(P)() }}', refused: CONSTRUCTOR },
    { name: 'filter | join argument', template: '{{ [1] | join(range.constructor(P)()) }}', refused: CONSTRUCTOR },
    { name: 'filter | dump with toJSON', template: '{{ {"toJSON": range.constructor(P)} | dump }}', refused: CONSTRUCTOR },
    { name: 'filter | sort by the constructor attribute', template: '{{ [range, cycler] | sort(false, false, "constructor") | dump }}', refused: { renders: '[null,null]' } },
    { name: 'filter | first then constructor', template: '{{ ([range] | first).constructor(P)() }}', refused: CONSTRUCTOR },
    { name: 'template text in raw', template: '{% raw %}{{ range.constructor(M)() }}{% endraw %}', refused: { renders: '{{ range.constructor(M)() }}' } },
    { name: 'include of a hostile partial', template: '{% include "evil.njk" %}', refused: /partial "evil\.njk" line 2: member access to "constructor"/ },
    { name: 'include with a computed name', template: '{% include "ev" ~ "il.njk" %}', refused: /include with a computed template name is not allowed/ },
    { name: 'include of a variable name', template: '{% set n = "evil.njk" %}{% include n %}', refused: /include with a computed template name is not allowed/ },
    { name: 'import of a hostile macro', template: '{% from "evil-macro.njk" import m %}{{ m() }}', refused: /partial "evil-macro\.njk" line 1: member access to "constructor"/ },
    { name: 'extends a hostile parent', template: '{% extends "evil.njk" %}', refused: /partial "evil\.njk" line 2/ },
    // A filter name is looked up when the template runs, in nunjucks' plain filter table: valueOf hands out the context.
    {
        name: 'Object.prototype.valueOf as a filter, then the loader swapped for a hostile one',
        template: '{% set c = 1 | valueOf %}{% set p = "{{ range.con" ~ "structor(" ~ P ~ ")() }}" %}{% set l = {cache: {}, getSource: [{src: p, path: "x", noCache: true}].at} %}{% set _ = c.env.loaders.splice(0, 1, l) %}{% include "anything" %}',
        refused: /the filter "valueOf" is not a registered filter/
    },
    { name: 'hasOwnProperty as a filter', template: '{{ range | hasOwnProperty("x") }}', refused: /the filter "hasOwnProperty" is not a registered filter/ },
    { name: 'constructor as a test', template: '{{ range is constructor }}', refused: /the test "constructor" is not a registered test/ },
    { name: 'valueOf as a test name given to select', template: '{{ [range] | select("valueOf") | dump }}', refused: /the test "valueOf" is not a registered test/ },
    { name: 'the context\'s env through a safe method\'s this', template: '{% set x = [1].at %}{{ x(0) }}{{ [range].at(0).constructor }}', refused: /calling "x" is not allowed in templates/ }
];

/** The template text with the marker's payload in place of P and its path in place of M. */
function instantiate(attack: Attack, marker: string): string {
    return attack.template.replace(/\bP\b/g, payload(marker)).replace(/\bM\b/g, JSON.stringify(marker));
}

const VARIABLES = { ctx: { keys: ['constructor'], history: [] } };

describe('template sandbox: known escape payloads', () => {
    let count = 0;
    const nextMarker = () => join(base, `marker-${++count}`);
    before(() => {
        mkdirSync(partials, { recursive: true });
        writeFileSync(join(partials, 'evil.njk'), `{# looks harmless #}\n{{ range.constructor(${payload(join(base, 'marker-partial'))})() }}`);
        writeFileSync(join(partials, 'evil-macro.njk'), `{% macro m() %}{{ joiner.constructor(${payload(join(base, 'marker-macro'))})() }}{% endmacro %}`);
    });
    after(() => {
        rmSync(base, { recursive: true, force: true });
        assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was polluted');
    });

    it('the harness is live: without the sandbox, a payload does write its marker', () => {
        const marker = nextMarker();
        new nunjucks.Environment().renderString(instantiate(ATTACKS[0], marker), {});
        assert.ok(existsSync(marker));
        rmSync(marker);
    });

    it('loads and renders what the bundled partials use: loop keys, data methods, imported macros, registered globals', () => {
        writeFileSync(join(partials, 'schema.njk'), '{% macro keys(s) %}{% for key in ["type", "enum"] %}{% if s[key] is defined %}{{ key }};{% endif %}{% endfor %}{% endmacro %}');
        const source = '{% from "schema.njk" import keys %}{% set parts = [1, 2] %}{% set _ = parts.splice(0, parts.length) %}{% set _ = parts.push(ctx.keys.length) %}'
            + '{{ keys({"type": "object"}) }}{{ parts | dump }}{{ ctx.keys[0 + 0] }}';
        assert.equal(renderSync(compileSandboxedTemplate(source, createTemplateEnvironment([partials]), 'allowed'), VARIABLES), 'type;[1]constructor');
    });

    for (const attack of ATTACKS) {
        it(`refuses ${attack.name} at load, and the payload does not run`, () => {
            const marker = nextMarker();
            const environment = createTemplateEnvironment([partials]);
            const source = instantiate(attack, marker);
            const run = () => renderSync(compileSandboxedTemplate(source, environment, 'attack'), VARIABLES);
            if (!(attack.refused instanceof RegExp)) {
                assert.equal(run(), attack.refused.renders.replace(/\bM\b/g, JSON.stringify(marker)));
            } else {
                const pattern = attack.refused;
                assert.throws(run, (error: unknown) => error instanceof TemplateSandboxError && pattern.test(error.message), `expected ${pattern}`);
            }
            assert.equal(existsSync(marker), false, 'the payload ran');
            assert.equal(existsSync(join(base, 'marker-partial')) || existsSync(join(base, 'marker-macro')), false, 'a partial\'s payload ran');
        });
    }
});

describe('template sandbox: the interpreter alone, without the load-time data check (defence in depth)', () => {
    let count = 0;
    const runtimeBase = mkdtempSync(join(tmpdir(), 'qodeassist-template-guard-'));
    after(() => rmSync(runtimeBase, { recursive: true, force: true }));

    // Parsed and node-checked, but not through the data-only AST check, as if a payload slipped past it; only the interpreter stands in the way.
    const unchecked = (source: string) => {
        const environment = createTemplateEnvironment([]);
        const registered = { filters: new Set(environment.filters.keys()), tests: new Set(environment.tests.keys()) };
        return new SandboxedTemplate(parseTemplate(source, 'unchecked', registered), environment, 'unchecked');
    };

    // Partials go through the loader, which checks them; here only what a single template can do on its own.
    for (const attack of ATTACKS.filter(candidate => !/\{% (include|from|extends)/.test(candidate.template))) {
        it(`stops ${attack.name} while rendering`, () => {
            const marker = join(runtimeBase, `marker-${++count}`);
            let failure: unknown;
            try {
                renderSync(unchecked(instantiate(attack, marker)), VARIABLES);
            } catch (error) {
                failure = error;
            }
            assert.equal(existsSync(marker), false, 'the payload ran');
            assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was polluted');
            if (/\bP\b/.test(attack.template)) {
                assert.ok(failure instanceof TemplateSandboxError, `a template that calls code rendered without a refusal: ${String(failure)}`);
            }
        });
    }

    it('still renders data, data methods, macros and registered functions', () => {
        const source = '{% macro twice(x) %}{{ x ~ x }}{% endmacro %}{% set a = [] %}{% set _ = a.push(ctx.word) %}'
            + '{{ a.join("") | upper }} {{ twice("o") }} {{ range(3) | join(",") }} {{ cycler("p", "q").next() }}';
        assert.equal(renderSync(unchecked(source), { ctx: { word: 'hi' } }), 'HI oo 0,1,2 p');
    });
});
