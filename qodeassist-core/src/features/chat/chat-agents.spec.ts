import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Configuration, loadConfiguration } from '../../agents/configuration-loader';
import { defaultConfigRoots } from '../../config/config-layers';
import { QodeAssistError } from '../../wire/error-info';
import { agentChoices, chatAgentFor, checkImageFor, ImagesNotTakenError } from './chat-agents';

describe('agentChoices and chatAgentFor: the agents a picker offers', () => {
    let user: string;
    beforeEach(() => {
        user = mkdtempSync(join(tmpdir(), 'qodeassist-chat-agents-'));
        mkdirSync(join(user, 'agents'));
    });
    afterEach(() => rmSync(user, { recursive: true, force: true }));

    /** A user agent file on top of a bundled one. */
    const agent = (name: string, base: string, extra = '') =>
        writeFileSync(join(user, 'agents', `${name}.toml`), `schema_version = 1\nname = "${name}"\nextends = "${base}"\n${extra}\n`);
    const rosters = (text: string) => writeFileSync(join(user, 'agents', 'rosters.toml'), `schema_version = 1\n${text}\n`);
    const load = (): Configuration => {
        const bundled = defaultConfigRoots();
        return loadConfiguration({ bundledAgents: bundled.bundledAgents, bundledProviders: bundled.bundledProviders, user });
    };
    const names = (choices: ReturnType<typeof agentChoices>) => choices.map(choice => [choice.name, choice.inRoster]);

    beforeEach(() => {
        agent('zeta-marked', 'claude-chat', 'pipelines = ["chat"]');
        agent('alpha-marked', 'ollama-chat', 'pipelines = ["chat"]');
        agent('listed-marked', 'openai-chat', 'pipelines = ["chat"]\nmodel = "my-model"');
        agent('fim-marked', 'ollama-fim-codellama', 'pipelines = ["chat"]');
        agent('refactor-marked', 'openai-refactor', 'pipelines = ["refactor"]');
        rosters('[chat]\nagents = ["openai-chat", "ollama-fim-codellama", "listed-marked", "ollama-chat"]\n[refactor]\nagents = ["ollama-refactor", "claude-refactor"]');
    });

    it('the roster loads without errors (the cases below depend on it)', () => {
        assert.deepEqual(load().issues.filter(issue => issue.severity === 'error'), []);
    });

    it('offers the chat roster in roster order, then the agents marked for chat by name; a FIM agent is offered neither way', () => {
        assert.deepEqual(names(agentChoices(load(), 'chat')), [
            ['openai-chat', true], ['listed-marked', true], ['ollama-chat', true], ['alpha-marked', false], ['zeta-marked', false]
        ]);
    });

    it('names each choice\'s model and provider instance', () => {
        const listed = agentChoices(load(), 'chat').find(choice => choice.name === 'listed-marked');
        assert.deepEqual(listed, { name: 'listed-marked', model: 'my-model', provider: 'openai', inRoster: true, images: true });
    });

    it('does not offer a chat-protocol agent that is neither in the roster nor marked (a bundled completion or refactor agent)', () => {
        const offered = agentChoices(load(), 'chat').map(choice => choice.name);
        assert.ok(!offered.includes('claude-completion') && !offered.includes('ollama-refactor') && !offered.includes('claude-chat'), offered.join(', '));
    });

    it('skips roster agents missing from the configuration', () => {
        const loaded = load();
        const without: Configuration = { ...loaded, agents: new Map([...loaded.agents].filter(([name]) => name !== 'openai-chat')) };
        assert.deepEqual(names(agentChoices(without, 'chat')), [['listed-marked', true], ['ollama-chat', true], ['alpha-marked', false], ['zeta-marked', false]]);
    });

    it('offers the refactor roster, then the agents marked for refactor, and none marked only for chat', () => {
        assert.deepEqual(names(agentChoices(load(), 'refactor')), [['ollama-refactor', true], ['claude-refactor', true], ['refactor-marked', false]]);
    });

    it('with others "all" (the refactor picker) follows the roster with every other chat-protocol agent, by name, and no FIM agent', () => {
        const offered = agentChoices(load(), 'refactor', 'all');
        assert.deepEqual(names(offered).slice(0, 2), [['ollama-refactor', true], ['claude-refactor', true]]);
        const rest = offered.slice(2).map(choice => choice.name);
        assert.deepEqual(rest, [...rest].sort((a, b) => a.localeCompare(b)));
        assert.ok(rest.includes('deepseek-chat') && rest.includes('zeta-marked'), rest.join(', '));
        assert.ok(!rest.includes('ollama-fim-codellama') && !rest.includes('codestral-fim'), rest.join(', '));
    });

    it('chatAgentFor takes the agent the user chose, even outside the roster', () => {
        assert.equal(chatAgentFor(load(), { agent: 'zeta-marked' }).name, 'zeta-marked');
    });

    it('chatAgentFor takes the roster\'s first agent that fits the file', () => {
        agent('python-chat', 'ollama-chat', '\n[match]\nfile = ["*.py"]');
        rosters('[chat]\nagents = ["python-chat", "openai-chat"]');
        const configuration = load();
        assert.deepEqual([chatAgentFor(configuration, { file: 'src/a.py' }).name, chatAgentFor(configuration, { file: 'src/a.ts' }).name], ['python-chat', 'openai-chat']);
    });

    /** The error chatAgentFor throws, as a value. */
    const failure = (configuration: Configuration, options: Parameters<typeof chatAgentFor>[1]) => {
        try {
            chatAgentFor(configuration, options);
        } catch (error) {
            assert.ok(error instanceof QodeAssistError, String(error));
            return error.info;
        }
        assert.fail('chatAgentFor returned an agent');
    };

    it('chatAgentFor refuses an unknown chosen agent with a Config error that says where to pick another', () => {
        assert.deepEqual(failure(load(), { agent: 'nobody' }), {
            category: 'Config',
            message: 'There is no agent named "nobody". Pick another in the chat\'s agent picker or the QodeAssist settings (qodeassist.chat.agent).'
        });
    });

    it('chatAgentFor with an empty chat roster names rosters.toml', () => {
        rosters('[chat]\nagents = []');
        assert.deepEqual(failure(load(), {}), {
            category: 'Config',
            message: 'No chat agent is available: the chat roster is empty or none of its agents fits this file. Add an agent to [chat] in .qodeassist/agents/rosters.toml.'
        });
    });

    it('chatAgentFor with a roster left empty by a configuration error counts the errors', () => {
        rosters('[chat]\nagents = ["ghost"]');
        assert.deepEqual(failure(load(), {}), {
            category: 'Config',
            message: 'No chat agent is available: the chat roster is empty or none of its agents fits this file. The configuration has 1 error(s); fix them first. Add an agent to [chat] in .qodeassist/agents/rosters.toml.'
        });
    });

    it('checkImageFor refuses an image for the chosen or the roster\'s agent when it takes none, naming the chat agents that do', () => {
        rosters('[chat]\nagents = ["deepseek-chat", "claude-chat", "llamacpp-chat", "openai-chat"]');
        const loaded = load();
        for (const options of [{ agent: 'deepseek-chat' }, {}]) {
            assert.throws(() => checkImageFor(loaded, options, 'diagram.png', 'image/png'), (error: unknown) => {
                assert.ok(error instanceof ImagesNotTakenError);
                assert.deepEqual([error.info.category, error.agent, error.imageAgents], ['Validation', 'deepseek-chat', ['claude-chat', 'openai-chat', 'alpha-marked', 'listed-marked', 'zeta-marked']]);
                assert.match(error.message, /^deepseek-chat takes no images .* "diagram\.png" was not attached\. Switch to an agent that takes images \(claude-chat, openai-chat, alpha-marked, listed-marked and 1 more\) in the agent picker, then attach it again\.$/);
                return true;
            });
        }
        assert.doesNotThrow(() => checkImageFor(loaded, { agent: 'deepseek-chat' }, 'notes.md', 'text/markdown'), 'a text file goes to any agent');
        assert.doesNotThrow(() => checkImageFor(loaded, { agent: 'claude-chat' }, 'diagram.png', 'image/png'));
        assert.doesNotThrow(() => checkImageFor(loaded, { agent: 'nobody' }, 'diagram.png', 'image/png'), 'no such agent: the send says so');
    });
});
