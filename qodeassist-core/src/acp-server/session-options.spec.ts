import * as assert from 'node:assert/strict';
import { QodeAssistError } from '../wire/error-info';
import { applyChoice, NO_ROLE, sessionConfigOptions, sessionModes, SessionCatalog } from './session-options';

const catalog: SessionCatalog = {
    agents: [
        { name: 'claude-chat', model: 'claude-sonnet-4-5', provider: 'anthropic', inRoster: true, images: true },
        { name: 'ollama-chat', model: 'qwen3:8b', provider: 'ollama', inRoster: false, images: false }
    ],
    roles: [{ id: 'reviewer', name: 'Reviewer', description: 'Reviews code' }],
    rosterPick: 'claude-chat'
};

describe('session options', () => {
    it('the agent picker shows the roster\'s pick until the user picks; the role picker starts at no role', () => {
        const [agent, role] = sessionConfigOptions(catalog, {});
        assert.equal(agent.id, 'agent');
        assert.ok(agent.type === 'select' && agent.currentValue === 'claude-chat');
        assert.deepEqual(agent.type === 'select' ? agent.options : [], [
            { value: 'claude-chat', name: 'claude-chat', description: 'claude-sonnet-4-5 · anthropic · images' },
            { value: 'ollama-chat', name: 'ollama-chat', description: 'qwen3:8b · ollama' }
        ]);
        assert.ok(role.type === 'select' && role.currentValue === NO_ROLE);
        assert.equal(sessionModes(catalog, { agent: 'ollama-chat' })?.currentModeId, 'ollama-chat');
    });

    it('without any chat agent there is no agent picker and no modes', () => {
        const empty = { agents: [], roles: [] };
        assert.deepEqual(sessionConfigOptions(empty, {}).map(option => option.id), ['role']);
        assert.equal(sessionModes(empty, {}), undefined);
    });

    it('applies a pick, and refuses one that is not offered, naming the ones that are', () => {
        assert.deepEqual(applyChoice(catalog, {}, 'agent', 'ollama-chat'), { agent: 'ollama-chat' });
        assert.deepEqual(applyChoice(catalog, { role: 'reviewer' }, 'role', NO_ROLE), { role: undefined });
        const refused = (pattern: RegExp) => (error: unknown) => error instanceof QodeAssistError && error.info.category === 'Validation' && pattern.test(error.message);
        assert.throws(() => applyChoice(catalog, {}, 'agent', 'gpt-9'), refused(/no chat agent "gpt-9".*claude-chat, ollama-chat/));
        assert.throws(() => applyChoice(catalog, {}, 'role', 'poet'), refused(/no role "poet".*reviewer/));
        assert.throws(() => applyChoice(catalog, {}, 'temperature', 1), refused(/no session option "temperature"/));
    });
});
