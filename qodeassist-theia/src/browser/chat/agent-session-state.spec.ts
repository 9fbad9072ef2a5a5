import * as assert from 'node:assert/strict';
import { commandSuggestions, nextAgentState } from './agent-session-state';

describe('an external agent\'s modes and commands in the composer', () => {
    it('follows the events: the modes, then the current one, then the commands; other events change nothing', () => {
        let state = nextAgentState(undefined, { type: 'AcpMode', requestId: 'r', currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] });
        state = nextAgentState(state, { type: 'AcpMode', requestId: 'r', currentModeId: 'code' });
        state = nextAgentState(state, { type: 'AcpCommands', requestId: 'r', commands: [{ name: 'review', description: 'Review changes', hint: 'what to review' }, { name: 'init', description: 'Write AGENTS.md' }] });
        state = nextAgentState(state, { type: 'TextDelta', requestId: 'r', text: 'x' });
        assert.deepEqual(state?.modes, { currentModeId: 'code', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] });
        assert.deepEqual(commandSuggestions(state, 're'), [{ value: 'review', detail: 'Review changes — what to review' }]);
        assert.deepEqual(commandSuggestions(state, '').map(item => item.value), ['review', 'init']);
        assert.deepEqual(commandSuggestions(undefined, ''), []);
    });

    it('a mode change before the modes are known names no modes', () => {
        assert.equal(nextAgentState(undefined, { type: 'AcpMode', requestId: 'r', currentModeId: 'code' })?.modes, undefined);
    });
});
