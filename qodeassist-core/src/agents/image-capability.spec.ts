import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfigRoots } from '../config/config-layers';
import { CHAT_PROTOCOLS } from '../wire/wire-protocols';
import { loadConfiguration } from './configuration-loader';

const load = (user?: string) => {
    const bundled = defaultConfigRoots();
    return loadConfiguration({ bundledAgents: bundled.bundledAgents, bundledProviders: bundled.bundledProviders, user });
};

/** Every bundled agent that speaks a chat protocol, and whether its template carries images (derived, not stated). */
const BUNDLED_CHAT_AGENTS: Record<string, boolean> = {
    'claude-chat': true, 'claude-thinking-chat': true, 'claude-refactor': true, 'claude-compression': true, 'claude-completion': false,
    'gemini-chat': true, 'gemini-refactor': true, 'gemini-compression': true, 'gemini-completion': false,
    'openai-chat': true, 'openai-refactor': true, 'openai-compression': true, 'openai-completion': false,
    'responses-chat': true, 'responses-refactor': true, 'responses-compression': true, 'responses-completion': false,
    'ollama-chat': true, 'ollama-refactor': true, 'ollama-compression': true, 'ollama-completion': false,
    'lmstudio-chat': true, 'lmstudio-responses-chat': true, 'mistral-chat': true, 'openrouter-chat': true,
    'qwen-chat': true, 'qwen-responses-chat': true, 'qwen3-coder-fim-chat': false,
    // OpenAI Chat with plain string contents (openai/text-messages.njk): the servers take no content parts.
    'deepseek-chat': false, 'deepseek-completion': false, 'llamacpp-chat': false,
    // Next edit suggestions send code, never images.
    'claude-next-edit': false, 'openai-next-edit': false, 'ollama-next-edit': false
};

describe('AgentFactory: which agents take images', () => {
    const configuration = load();

    it('lists every bundled chat-protocol agent in the table below', () => {
        const chatAgents = [...configuration.agents.values()].filter(agent => CHAT_PROTOCOLS.has(agent.protocol)).map(agent => agent.name).sort();
        assert.deepEqual(chatAgents, Object.keys(BUNDLED_CHAT_AGENTS).sort());
    });

    for (const [name, takes] of Object.entries(BUNDLED_CHAT_AGENTS)) {
        it(`${name} ${takes ? 'takes' : 'takes no'} images, as its [body] template renders them or drops them`, () => {
            assert.equal(configuration.agents.get(name)?.images, takes);
        });
    }

    it('completion (FIM) agents take none: their bodies send no conversation', () => {
        const fim = [...configuration.agents.values()].filter(agent => !CHAT_PROTOCOLS.has(agent.protocol));
        assert.ok(fim.length > 0);
        assert.deepEqual(fim.filter(agent => agent.images).map(agent => agent.name), []);
    });

    describe('images = … in the agent file', () => {
        let user: string;
        beforeEach(() => {
            user = mkdtempSync(join(tmpdir(), 'qodeassist-images-'));
            mkdirSync(join(user, 'agents'));
        });
        afterEach(() => rmSync(user, { recursive: true, force: true }));
        const write = (name: string, text: string) => {
            const path = join(user, 'agents', `${name}.toml`);
            writeFileSync(path, `schema_version = 1\nname = "${name}"\n${text}\n`);
            return path;
        };

        it('images = false wins over a template that carries images (a model without vision)', () => {
            write('text-only', 'extends = "openai-chat"\nmodel = "o3-mini"\nimages = false');
            const loaded = load(user);
            assert.equal(loaded.agents.get('text-only')?.images, false);
            assert.equal(loaded.agents.get('openai-chat')?.images, true);
        });

        it('images = true cannot make a text-only template send images: a notice says so and the agent takes none', () => {
            const file = write('hopeful', 'extends = "deepseek-chat"\nimages = true');
            const loaded = load(user);
            assert.equal(loaded.agents.get('hopeful')?.images, false);
            const issues = loaded.issues.filter(issue => issue.file === file);
            assert.deepEqual(issues.map(issue => [issue.severity, issue.line, issue.field]), [['notice', 4, 'images']]);
            assert.match(issues[0].message, /images = true, but its \[body\] template sends no image blocks/);
            assert.match(issues[0].fix ?? '', /openai\/messages\.njk/);
        });

        it('images = true on a template that carries images is simply true', () => {
            write('vision', 'extends = "llamacpp-chat"\nimages = true\n\n[body]\nmessages = "{% include \'openai/messages.njk\' %}"');
            assert.equal(load(user).agents.get('vision')?.images, true);
        });

        it('a value that is not true or false is an error naming the file, line and key', () => {
            const file = write('typo', 'extends = "openai-chat"\nimages = "yes"');
            const loaded = load(user);
            assert.deepEqual(loaded.issues.filter(issue => issue.file === file).map(issue => [issue.severity, issue.line, issue.field, issue.message]),
                [['error', 4, 'images', 'images must be true or false (whether the model takes images); leave it out to follow the [body] template']]);
            assert.equal(loaded.agents.has('typo'), false);
        });
    });
});
