import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as nunjucks from 'nunjucks';
import { renderSync } from './body-template';
import { createTemplateEnvironment } from './partial-loader';
import { PARSE_OPTIONS } from './template-nodes';
import { compileSandboxedTemplate } from './template-sandbox';

const base = mkdtempSync(join(tmpdir(), 'qodeassist-interpreter-'));
const partials = join(base, 'partials');

const PARTIALS: Record<string, string> = {
    'row.njk': '{%- set inner = "set in the partial" -%}\n<{{ item }}|{{ outer }}|{{ loop.index }}>',
    'macros.njk': '{% macro wrap(x, left="[", right="]") %}{{ left }}{{ x }}{{ right }}{% endmacro %}{% set exported = 42 %}{% set _hidden = 1 %}',
    'base.njk': 'head {% block body %}base body{% endblock %} {% block foot %}base foot{% endblock %} tail',
    'child.njk': '{% extends "base.njk" %}ignored{% block body %}child body + {{ super() }}{% endblock %}'
};

const DATA = {
    ctx: {
        history: [{ role: 'user', content: [{ type: 'text', text: 'hi "there"' }] }, { role: 'assistant', content: [] }],
        tools: [{ name: 'b', n: 2 }, { name: 'a', n: 1 }, { name: 'c', n: 3 }],
        prefix: '  code\n', dict: { z: 1, a: 2, m: 3 }, text: 'Hello World foo bar', num: 7.5, nil: null
    },
    model: 'm'
};

/** Templates whose output must equal nunjucks' own (compiled) rendering with the same options, byte for byte. */
const CASES: string[] = [
    // output, whitespace control, trimBlocks and lstripBlocks
    'a {{ ctx.prefix }} b {{ missing }} c {{ ctx.nil }} d {{ ctx.missing.deeper }}',
    '  {% if true %}\n    x\n  {% endif %}\n  y  {%- if true -%}  z  {%- endif %}\n{# comment #}\n  w',
    '{%- for m in ctx.history -%}\n  {{ m.role }}\n{%- endfor -%}\n\n{% raw %}{{ raw }}{% endraw %}',
    '[{% for x in [1, 2, 3] %}\n  {{ x }}{% if not loop.last %},{% endif %}\n{% endfor %}]',
    // if / elif / else, inline if, tests, comparisons, arithmetic
    '{% for n in range(0, 7) %}{% if n is odd %}o{% elif n is divisibleby(4) %}f{% else %}e{% endif %}{% endfor %}',
    '{{ 1 if ctx.num > 7 else 2 }} {{ "yes" if ctx.nil is none }} {{ "x" if false }}|{{ 1 < 2 < 3 }} {{ 3 == "3" }} {{ 3 === "3" }} {{ 2 != 3 }}',
    '{{ 7 // 2 }} {{ 7 % 3 }} {{ 2 ** 10 }} {{ -ctx.num }} {{ 1 + 2 * 3 }} {{ "a" + 1 }} {{ "a" ~ 1 ~ none ~ undefinedName }} {{ 10 / 4 }}',
    '{{ "b" in "abc" }} {{ 2 in [1, 2] }} {{ "z" in ctx.dict }} {{ "q" in ctx.dict }} {{ not ("a" in "b") }} {{ ctx.nil or "d" }} {{ 0 and 1 }}',
    '{{ ctx.missing is defined }} {{ ctx.prefix is string }} {{ ctx.num is number }} {{ ctx.tools is iterable }} {{ ctx.dict is mapping }} {{ 5 is ge(5) }}',
    // loops: dicts, else, loop variables, nested scoping, set
    '{% for k, v in ctx.dict %}{{ k }}={{ v }};{% endfor %}{% for x in [] %}no{% else %}empty{% endfor %}',
    '{% for t in ctx.tools %}{{ loop.index }}/{{ loop.index0 }}/{{ loop.revindex }}/{{ loop.revindex0 }}/{{ loop.first }}/{{ loop.last }}/{{ loop.length }} {% endfor %}',
    '{% set out = [] %}{% for t in ctx.tools %}{% set x = t.n %}{% set _ = out.push(x) %}{% endfor %}{{ out | dump }} {{ x }}',
    '{% set a = 1 %}{% for i in [1] %}{% set a = 2 %}{% set b = 3 %}{% endfor %}{{ a }} {{ b }}',
    '{% for a in [1, 2] %}{% for b in [] %}{% else %}{{ loop.index }}{% endfor %}{% endfor %}',
    '{% for a, b in [[1, 2], [3, 4]] %}{{ a }}{{ b }}{% endfor %} {% for c in "xyz" %}{{ c }}{% endfor %}',
    '{% set block %}captured {{ 1 + 1 }}{% endset %}{{ block | upper }}{% set p, q = "same" %}{{ p }}{{ q }}',
    '{% filter upper %}shout {{ ctx.model }}{% endfilter %}',
    '{% switch ctx.num %}{% case 1 %}one{% case 7.5 %}{% case 8 %}seven-eight{% default %}other{% endswitch %}',
    // macros, call blocks, imports, includes, extends
    '{% macro m(a, b=2, c="c") %}{{ a }}{{ b }}{{ c }}{% endmacro %}{{ m(1) }} {{ m(1, 3) }} {{ m(1, c="z") }} {{ m(b=5, a=4) }} {{ m(1, 2, 3) }}',
    '{% macro outer() %}<{{ caller() }}>{% endmacro %}{% call outer() %}inside {{ ctx.model }}{% endcall %}',
    '{% macro list(items) %}{% for i in items %}{{ caller(i) }}{% endfor %}{% endmacro %}{% call(x) list([1, 2]) %}[{{ x }}]{% endcall %}',
    '{% macro fact(n) %}{% if n <= 1 %}1{% else %}{{ n }}*{{ fact(n - 1) }}{% endif %}{% endmacro %}{{ fact(5) }}',
    '{% import "macros.njk" as lib %}{{ lib.wrap("x") }}{{ lib.exported }}{{ lib._hidden }}{% from "macros.njk" import wrap as w, exported %}{{ w(1, "(", ")") }}{{ exported }}',
    '{% set outer = "o" %}{% for item in ["a", "b"] %}{% include "row.njk" %}{% endfor %}{{ inner }}',
    '{% include "child.njk" %}',
    '{% include "missing.njk" ignore missing %}ok',
    // filters
    '{{ ctx.tools | sort(false, false, "name") | join(",", "name") }} {{ ctx.tools | sort(true, false, "n") | join(",", "n") }}',
    '{{ [3, 1, 2] | sort | join }} {{ [3, 1, 2] | sort(true) | join("-") }} {{ ["b", "A", "c"] | sort | join }} {{ ctx.dict | dictsort | dump }}',
    '{{ ctx.text | lower }} {{ ctx.text | upper }} {{ ctx.text | title }} {{ "hELLO wORLD" | capitalize }} {{ "  x  " | trim }}|{{ ctx.text | wordcount }}',
    '{{ ctx.text | replace("o", "0") }} {{ "aaa" | replace("a", "b", 2) }} {{ "ab" | replace("", "-") }} {{ ctx.text | truncate(9) }} {{ ctx.text | truncate(9, true, "…") }}',
    '{{ "x" | center(9) }}|{{ "a\\nb" | indent(2) }}|{{ "a\\nb" | indent(2, true) }}|{{ [1, 2, 3, 4, 5] | batch(2, 0) | dump }} {{ [1, 2, 3, 4, 5] | slice(2) | dump }}',
    '{{ ctx.tools | first | dump }} {{ ctx.tools | last | dump }} {{ ctx.tools | length }} {{ ctx.dict | length }} {{ "abc" | list | dump }} {{ "abc" | reverse }} {{ [1, 2] | reverse | dump }}',
    '{{ "3.7" | float }} {{ "3.7" | int }} {{ "ff" | int(0, 16) }} {{ "x" | int(9) }} {{ -3 | abs }} {{ 3.14159 | round(2) }} {{ 3.1 | round(0, "ceil") }} {{ [1, 2, 3] | sum }}',
    '{{ ctx.tools | sum("n") }} {{ ctx.tools | selectattr("n") | length }} {{ [1, 2, 3, 4] | select("odd") | dump }} {{ [1, 2, 3, 4] | reject("even") | dump }} {{ [0, 1, "", "a"] | select | dump }}',
    '{{ ctx.missing | default("dflt") }} {{ ctx.nil | default("dflt") }} {{ "" | d("dflt", true) }} {{ ctx.tools | groupby("n") | dump }} {{ "<a & \'b\'>" | escape }} {{ "<b>" | safe }}',
    '{{ ctx.missing | dump }}|{{ ctx.missing | json }}|{{ [ctx.missing, range] | dump }}|{{ {"a": ctx.missing} | dump }}',
    '{{ ctx.history | dump }} {{ {"a": [1, {"b": none}]} | dump(2) }} {{ ctx.dict | string }} {{ [1, [2, 3]] | string }} {{ 5 | string }}',
    // data methods
    '{% set a = [1, 2] %}{% set _ = a.push(3) %}{{ a.join("-") }} {{ a.slice(1).length }} {{ a.indexOf(2) }} {{ a.includes(5) }} {{ "a,b".split(",") | dump }} {{ "ab".toUpperCase() }} {{ "x".repeat(3) }} {{ "7".padStart(3, "0") }}',
    '{{ "abc".replace("b", "bb") }} {{ "a-b-c".replaceAll("-", "+") }} {{ (1.5).toFixed(2) }} {{ ctx.dict.hasOwnProperty("z") }} {{ [[1, [2]], 3].flat() | dump }} {{ "abc"[1] }} {{ ctx.tools[0].name }}',
    '{{ cycler("a", "b").next() }}{% set c = cycler(1, 2) %}{{ c.next() }}{{ c.next() }}{{ c.next() }}{{ c.current }}'
];

describe('template interpreter: renders exactly what nunjucks renders', () => {
    // nunjucks as the agents used it before: compiled, with the json filter the environment registered.
    const reference = () => new nunjucks.Environment(new nunjucks.FileSystemLoader(partials), PARSE_OPTIONS)
        .addFilter('json', (value: unknown) => JSON.stringify(value ?? null));
    before(() => {
        mkdirSync(partials, { recursive: true });
        for (const [name, text] of Object.entries(PARTIALS)) {
            writeFileSync(join(partials, name), text);
        }
    });
    after(() => rmSync(base, { recursive: true, force: true }));

    for (const source of CASES) {
        it(source.length > 90 ? `${source.slice(0, 90)}…` : source, () => {
            const expected = reference().renderString(source, DATA);
            const environment = createTemplateEnvironment([partials]);
            assert.equal(renderSync(compileSandboxedTemplate(source, environment, 'case'), DATA), expected);
        });
    }

    it('parses whitespace control in the lexer and parser: the tree already holds the trimmed text', () => {
        const environment = createTemplateEnvironment([]);
        const template = compileSandboxedTemplate('a  {%- if true -%}  b  {%- endif -%}  c\n  {% if true %}\n d\n  {% endif %}\n', environment, 'ws');
        const texts: string[] = [];
        const collect = (node: unknown): void => {
            const typed = node as { typename?: string; value?: unknown; fields?: string[]; children?: unknown[] } & Record<string, unknown>;
            if (typed?.typename === 'TemplateData') {
                texts.push(String(typed.value));
            }
            for (const field of typed?.fields ?? []) {
                const child = typed[field];
                (Array.isArray(child) ? child : [child]).forEach(collect);
            }
        };
        collect(template.root);
        assert.deepEqual(texts, ['a', 'b', 'c\n', ' d\n']);
        assert.equal(renderSync(template, {}), 'abc\n d\n');
    });
});
