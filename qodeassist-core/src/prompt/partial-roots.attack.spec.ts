import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfiguration } from '../agents/configuration-loader';
import { defaultConfigRoots } from '../config/config-layers';
import { syntheticContext } from './template-context';
import { BodyTemplate } from './body-template';
import { createTemplateEnvironment, MAX_PARTIAL_BYTES, PartialError } from './partial-loader';
import { compileSandboxedTemplate } from './template-sandbox';

/** What a leaked file would put into a request: a key-like secret. */
const MARKER_TEXT = 'sk-marker-4f1c9d-not-for-templates';

describe('partial roots: includes reach only regular files inside their layer\'s real folder', () => {
    let base: string;
    let layer: string;
    let outside: string;
    beforeEach(() => {
        base = mkdtempSync(join(tmpdir(), 'qodeassist-partial-roots-'));
        layer = join(base, 'layer');
        outside = join(base, 'outside');
        mkdirSync(layer);
        mkdirSync(outside);
        writeFileSync(join(outside, 'marker'), `"${MARKER_TEXT}"`);
    });
    afterEach(() => rmSync(base, { recursive: true, force: true }));

    const body = (environment: ReturnType<typeof createTemplateEnvironment>, include: string) =>
        BodyTemplate.compile({ leak: `{% include "${include}" ignore missing %}`, keep: 1 }, environment, 'leaky');

    it('refuses a partials root that links out of its layer (to a folder holding a key): the key never reaches the body', () => {
        symlinkSync(outside, join(layer, 'partials'));
        const environment = createTemplateEnvironment([join(layer, 'partials')]);
        assert.equal(environment.refusedRoots.length, 1);
        assert.match(environment.refusedRoots[0].reason, new RegExp(`partials folder ${join(layer, 'partials')} resolves to ${outside}, outside its configuration folder`));
        const rendered = body(environment, 'marker').render({});
        assert.deepEqual(rendered, { keep: 1 });
        assert.equal(JSON.stringify(rendered).includes(MARKER_TEXT), false, 'the key reached the request body');
        assert.throws(() => compileSandboxedTemplate('{% include "marker" %}', environment, 't'),
            (error: unknown) => error instanceof PartialError && /no partial named "marker"/.test(error.message) && !error.message.includes(MARKER_TEXT));
    });

    it('refuses a partials root that links to /proc/self: "environ" never renders', () => {
        symlinkSync('/proc/self', join(layer, 'partials'));
        const environment = createTemplateEnvironment([join(layer, 'partials')]);
        assert.match(environment.refusedRoots[0]?.reason ?? '', /resolves to \/proc\/\d+, outside its configuration folder/);
        const rendered = JSON.stringify(body(environment, 'environ').render({}));
        assert.equal(rendered.includes('PATH='), false, 'the process environment reached the request body');
    });

    it('the configuration loader lists the refused root as a notice and loads no partial from it', () => {
        const user = join(base, 'user');
        mkdirSync(join(user, 'agents'), { recursive: true });
        symlinkSync(outside, join(user, 'partials'));
        writeFileSync(join(user, 'agents', 'leaky.toml'), [
            'schema_version = 1', 'name = "leaky"', 'extends = "ollama-chat"', '', '[body]', 'keep_alive = "{% include \'marker\' %}"', ''
        ].join('\n'));
        const bundled = defaultConfigRoots();
        const configuration = loadConfiguration({ bundledAgents: bundled.bundledAgents, bundledProviders: bundled.bundledProviders, user });
        const notice = configuration.issues.find(issue => issue.file === join(user, 'partials'));
        assert.equal(notice?.severity, 'notice');
        assert.match(notice?.message ?? '', /resolves to .*outside its configuration folder .*; it is not used/);
        assert.equal(configuration.agents.has('leaky'), false, 'an agent whose partial is missing must not load');
        assert.equal(JSON.stringify(configuration.issues).includes(MARKER_TEXT), false, 'the key reached an issue message');
        const agent = configuration.agents.get('ollama-chat');
        assert.equal(JSON.stringify(agent?.renderBody(syntheticContext())).includes(MARKER_TEXT), false);
    });

    it('does not read a roles folder that links out of its layer: its text never reaches a system prompt', () => {
        const user = join(base, 'user');
        mkdirSync(join(user, 'agents'), { recursive: true });
        writeFileSync(join(outside, 'leak.json'), JSON.stringify({ id: 'leak', name: 'Leak', description: 'x', systemPrompt: MARKER_TEXT }));
        symlinkSync(outside, join(user, 'roles'));
        writeFileSync(join(user, 'agents', 'leaky.toml'),
            ['schema_version = 1', 'name = "leaky"', 'extends = "ollama-chat"', 'system_prompt = "{{ agent_role(\'leak\') }}"', ''].join('\n'));
        const bundled = defaultConfigRoots();
        const configuration = loadConfiguration({ bundledAgents: bundled.bundledAgents, bundledProviders: bundled.bundledProviders, user });
        const notice = configuration.issues.find(issue => issue.file === join(user, 'roles'));
        assert.equal(notice?.severity, 'notice');
        assert.match(notice?.message ?? '', /the roles folder .* resolves to .*outside its configuration folder/);
        assert.equal(configuration.roles.has('leak'), false);
        assert.equal(configuration.agents.has('leaky'), false);
        assert.equal(JSON.stringify([...configuration.roles.values()]).includes(MARKER_TEXT), false, 'the key reached a role');
    });

    it('refuses a FIFO partial at once, without blocking on it', () => {
        const partials = join(layer, 'partials');
        mkdirSync(partials);
        execFileSync('mkfifo', [join(partials, 'pipe.njk')]);
        const started = Date.now();
        assert.throws(() => compileSandboxedTemplate('{% include "pipe.njk" %}', createTemplateEnvironment([partials]), 't'),
            (error: unknown) => error instanceof PartialError && /"pipe\.njk" is not a regular file/.test(error.message));
        assert.ok(Date.now() - started < 2000, 'reading the FIFO blocked');
    });

    it('refuses a link to a device (/dev/zero) inside the root as a link out of it', () => {
        const partials = join(layer, 'partials');
        mkdirSync(partials);
        symlinkSync('/dev/zero', join(partials, 'zero.njk'));
        assert.throws(() => compileSandboxedTemplate('{% include "zero.njk" %}', createTemplateEnvironment([partials]), 't'),
            (error: unknown) => error instanceof PartialError && /leads outside its root/.test(error.message));
    });

    it('refuses a partial over MAX_PARTIAL_BYTES, naming the cap', () => {
        const partials = join(layer, 'partials');
        mkdirSync(partials);
        writeFileSync(join(partials, 'huge.njk'), 'x'.repeat(MAX_PARTIAL_BYTES + 1));
        assert.throws(() => compileSandboxedTemplate('{% include "huge.njk" %}', createTemplateEnvironment([partials]), 't'),
            (error: unknown) => error instanceof PartialError && error.message.includes(`over MAX_PARTIAL_BYTES (${MAX_PARTIAL_BYTES})`) && /split it/.test(error.fix));
    });

    for (const name of ['a/../../outside/marker', '.hidden', 'a//b', 'a/./b', 'a\\b', ' space.njk', 'x\nnjk', '%2e%2e/marker', 'a"b.njk']) {
        it(`refuses the include name ${JSON.stringify(name)} as not a plain relative name`, () => {
            const partials = join(layer, 'partials');
            mkdirSync(partials);
            const environment = createTemplateEnvironment([partials]);
            assert.throws(() => environment.getTemplate(name), (error: unknown) => error instanceof PartialError && /not a plain name/.test(error.message));
        });
    }
});
