import * as assert from 'node:assert/strict';
import * as nunjucks from 'nunjucks';
import { createTemplateEnvironment } from './partial-loader';
import { AstNode, checkTemplateTree } from './template-nodes';
import { compileSandboxedTemplate, TemplateSandboxError } from './template-sandbox';

const environment = createTemplateEnvironment([]);
const registered = { filters: new Set(environment.filters.keys()), tests: new Set(environment.tests.keys()) };

describe('template nodes: only what the interpreter runs is loaded', () => {
    it('refuses a custom tag (CallExtension) with its line, whatever produced the tree', () => {
        const nodes = (nunjucks as unknown as { nodes: Record<string, new (...args: unknown[]) => AstNode> }).nodes;
        const extension = new nodes.CallExtension({ __name: 'evil' }, 'run', new nodes.NodeList(0, 0, []), []);
        extension.lineno = 2;
        const root = new nodes.Root(0, 0, [new nodes.Output(2, 0, [extension])]);
        assert.throws(() => checkTemplateTree(root, registered),
            (error: unknown) => error instanceof TemplateSandboxError && error.line === 3 && /template extensions are not allowed/.test(error.message));
    });

    it('refuses a node type it does not know, naming it', () => {
        const root = { typename: 'Root', lineno: 0, colno: 0, fields: ['children'], children: [{ typename: 'AsyncEach', lineno: 4, colno: 0, fields: [] }] };
        assert.throws(() => checkTemplateTree(root as unknown as AstNode, registered),
            (error: unknown) => error instanceof TemplateSandboxError && error.line === 5 && /the construct AsyncEach is not allowed/.test(error.message));
    });

    const refusals: Array<[string, string, RegExp]> = [
        ['a quoted set target', '{% set a"b = 1 %}', /the variable "a\\"b" is not a plain name/],
        ['a quoted macro parameter', '{% macro m(a"b) %}{% endmacro %}', /the parameter "a\\"b" is not a plain name/],
        ['a quoted keyword parameter', '{% macro m(x, a"b=1) %}{% endmacro %}', /the parameter name "a\\"b" is not a plain name/],
        ['a quoted macro name', '{% macro m"x() %}{% endmacro %}', /the macro name "m\\"x" is not a plain name/],
        ['a quoted loop variable', '{% for k"x in [1] %}{% endfor %}', /the loop variable "k\\"x" is not a plain name/],
        ['a quoted loop value name', '{% for k, v"x in {} %}{% endfor %}', /the loop variable "v\\"x" is not a plain name/],
        ['a quoted import alias', '{% import "p.njk" as b"c %}', /the import alias "b\\"c" is not a plain name/],
        ['a quoted from-import alias', '{% from "p.njk" import a as b"c %}', /the import alias "b\\"c" is not a plain name/],
        ['a quoted imported name', '{% from "p.njk" import a"c %}', /the imported name "a\\"c" is not a plain name/],
        ['a quoted keyword argument', '{{ range(a"b=1) }}', /the keyword name "a\\"b" is not a plain name/],
        ['a quoted-text keyword argument', '{{ range("a\\"b"=1) }}', /in place of Symbol/],
        ['a quoted block name', '{% block b"x %}{% endblock %}', /the block name "b\\"x" is not a plain name/],
        ['a quoted filter name', '{{ 1 | up"per }}', /the filter "up"per" is not a registered filter/],
        ['a dotted filter name', '{{ 1 | lib.upper }}', /the filter "lib.upper" is not a registered filter/],
        ['a quoted test name', '{{ 1 is od"d }}', /the test "od"d" is not a registered test/],
        ['a backslash in a variable', '{{ a\\b }}', /is not a plain name/],
        ['a host name as a variable', '{% set process = 1 %}', /"process" is not available in templates/],
        ['a regular expression literal', '{{ r/abc/ }}', /regular expressions are not supported/],
        ['a number as a dict key', '{{ {1: 2} }}', /a dict key that is not text or a name/],
        ['an empty lookup', '{{ [] % not [] }}', /an incomplete LookupVal/]
    ];
    for (const [what, source, pattern] of refusals) {
        it(`refuses ${what} at load`, () => {
            assert.throws(() => compileSandboxedTemplate(source, environment, 't'),
                (error: unknown) => error instanceof TemplateSandboxError && error.line === 1 && pattern.test(error.message), `expected ${pattern}`);
        });
    }
});
