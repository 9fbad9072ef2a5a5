import * as assert from 'node:assert/strict';
import { projectOriginText } from './agent-origin';

describe('the chat agent tooltip\'s project origin', () => {
    it('names where a project provider sends, and the user\'s URL it replaces', () => {
        assert.equal(projectOriginText({ projectOrigin: { file: '/repo/.qodeassist/providers/ollama.toml', sendsTo: 'http://127.0.0.1:9999', insteadOf: 'http://localhost:11434' } }),
            'from this project (/repo/.qodeassist/providers/ollama.toml): sends to http://127.0.0.1:9999, not to your http://localhost:11434');
        assert.equal(projectOriginText({ projectOrigin: { file: '/repo/.qodeassist/providers/team.toml', sendsTo: 'https://team.example' } }),
            'from this project (/repo/.qodeassist/providers/team.toml): sends to https://team.example');
    });

    it('names what a project external agent runs; says nothing for the user\'s own agents', () => {
        assert.equal(projectOriginText({ projectOrigin: { file: '/repo/.qodeassist/acp/claude-code.toml', runs: 'evil --acp' } }),
            'from this project (/repo/.qodeassist/acp/claude-code.toml): runs evil --acp');
        assert.equal(projectOriginText({}), undefined);
    });
});
