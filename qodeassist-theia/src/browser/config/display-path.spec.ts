import * as assert from 'node:assert/strict';
import { displayPath, displayPathsIn, PathRoot } from './display-path';

const roots: PathRoot[] = [
    { path: '/home/ann', label: '~' },
    { path: '/work/project', label: '' },
    { path: '/home/ann/.qodeassist', label: '~/.qodeassist' }
];

describe('displayPath', () => {
    it('shows a workspace file relative to the workspace', () => {
        assert.equal(displayPath('/work/project/.qodeassist/agents/x.toml', roots), '.qodeassist/agents/x.toml');
    });

    it('shows a user file under the config folder it is in, not under the home folder', () => {
        assert.equal(displayPath('/home/ann/.qodeassist/agents/x.toml', roots), '~/.qodeassist/agents/x.toml');
        assert.equal(displayPath('/home/ann/.claude/skills/tone/SKILL.md', roots), '~/.claude/skills/tone/SKILL.md');
    });

    it('leaves bundled files, other folders and look-alike prefixes as they are', () => {
        assert.equal(displayPath('bundled:agents/openai-base.toml', roots), 'bundled:agents/openai-base.toml');
        assert.equal(displayPath('/opt/skills/x/SKILL.md', roots), '/opt/skills/x/SKILL.md');
        assert.equal(displayPath('/work/project-two/a.toml', roots), '/work/project-two/a.toml');
    });

    it('understands Windows separators', () => {
        assert.equal(displayPath('C:\\work\\.qodeassist\\agents\\x.toml', [{ path: 'C:\\work', label: '' }]), '.qodeassist\\agents\\x.toml');
    });
});

describe('displayPathsIn', () => {
    it('shortens every path a message names', () => {
        assert.equal(displayPathsIn('agent "a" is also defined in /home/ann/.qodeassist/agents/a.toml and /work/project/.qodeassist/agents/a.toml', roots),
            'agent "a" is also defined in ~/.qodeassist/agents/a.toml and .qodeassist/agents/a.toml');
    });
});
