import * as assert from 'node:assert/strict';
import { BodyTemplate, BodyTemplateError } from './body-template';
import { createTemplateEnvironment } from './partial-loader';

const environment = createTemplateEnvironment([]);
const render = (body: Record<string, unknown>, variables: Record<string, unknown> = {}) => BodyTemplate.compile(body, environment, 't').render(variables);

describe('BodyTemplate', () => {
    it('passes literals through unchanged, nested tables and arrays included', () => {
        const body = { model: 'm', stream: true, max_tokens: 10, options: { stop: ['\n'], temp: 0.5 }, list: [1, 'two'] };
        assert.deepEqual(render(body), body);
    });

    it('splices a template\'s JSON output raw', () => {
        assert.deepEqual(render({ messages: '[{"role": "user", "content": {{ text | dump }}}]' }, { text: 'say "hi" </s>' }),
            { messages: [{ role: 'user', content: 'say "hi" </s>' }] });
    });

    it('does not HTML-escape (autoescape off) and offers a json filter', () => {
        assert.deepEqual(render({ a: '{{ x | json }}', b: '{{ x | dump }}' }, { x: '<a & b>' }), { a: '<a & b>', b: '<a & b>' });
    });

    it('drops a key whose template renders empty, and an empty literal string', () => {
        assert.deepEqual(render({ keep: 1, tools: '{% if false %}[]{% endif %}', gone: '' }), { keep: 1 });
    });

    it('drops an array element that renders empty', () => {
        assert.deepEqual(render({ stop: ['a', '{% if false %}"b"{% endif %}', '{{ "c" | dump }}'] }), { stop: ['a', 'c'] });
    });

    it('names the field and the fix when the output is not JSON', () => {
        assert.throws(() => render({ options: { seed: '{{ word }}' } }, { word: 'seven' }), (error: unknown) =>
            error instanceof BodyTemplateError && error.field === 'options.seed' && /not JSON.*: seven/.test(error.message) && /dump/.test(error.fix));
    });

    it('reports a template syntax error at compile time with its field', () => {
        assert.throws(() => BodyTemplate.compile({ messages: '{% for x in %}{% endfor %}' }, environment, 't'), (error: unknown) =>
            error instanceof BodyTemplateError && error.field === 'messages');
    });
});
