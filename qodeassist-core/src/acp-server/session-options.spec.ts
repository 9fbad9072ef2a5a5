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
    it('the agent picker shows the roster\'s pick until the user picks; the mode starts at Act, the role picker at no role', () => {
        const [agent, mode, role] = sessionConfigOptions(catalog, {});
        assert.equal(agent.id, 'agent');
        assert.ok(agent.type === 'select' && agent.currentValue === 'claude-chat');
        assert.deepEqual(agent.type === 'select' ? agent.options : [], [
            { value: 'claude-chat', name: 'claude-chat', description: 'claude-sonnet-4-5 · anthropic · images' },
            { value: 'ollama-chat', name: 'ollama-chat', description: 'qwen3:8b · ollama' }
        ]);
        assert.ok(role.type === 'select' && role.currentValue === NO_ROLE);
        assert.ok(mode.type === 'select' && mode.id === 'mode' && mode.category === 'mode' && mode.currentValue === 'act');
        assert.deepEqual(sessionModes({}).availableModes.map(entry => entry.id), ['act', 'plan']);
        assert.equal(sessionModes({ mode: 'plan' }).currentModeId, 'plan');
    });

    it('without any chat agent there is no agent picker; the mode and role pickers stay', () => {
        const empty = { agents: [], roles: [] };
        assert.deepEqual(sessionConfigOptions(empty, {}).map(option => option.id), ['mode', 'role']);
    });

    it('applies a pick, and refuses one that is not offered, naming the ones that are', () => {
        assert.deepEqual(applyChoice(catalog, {}, 'agent', 'ollama-chat'), { agent: 'ollama-chat' });
        assert.deepEqual(applyChoice(catalog, { role: 'reviewer' }, 'role', NO_ROLE), { role: undefined });
        const refused = (pattern: RegExp) => (error: unknown) => error instanceof QodeAssistError && error.info.category === 'Validation' && pattern.test(error.message);
        assert.throws(() => applyChoice(catalog, {}, 'agent', 'gpt-9'), refused(/no chat agent "gpt-9".*claude-chat, ollama-chat/));
        assert.throws(() => applyChoice(catalog, {}, 'role', 'poet'), refused(/no role "poet".*reviewer/));
        assert.deepEqual(applyChoice(catalog, {}, 'mode', 'plan'), { mode: 'plan' });
        assert.throws(() => applyChoice(catalog, {}, 'mode', 'yolo'), refused(/no mode "yolo"/));
        assert.throws(() => applyChoice(catalog, {}, 'temperature', 1), refused(/no session option "temperature"/));
    });
});
