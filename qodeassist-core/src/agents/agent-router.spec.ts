import * as assert from 'node:assert/strict';
import { Configuration, ResolvedAgent } from './configuration-loader';
import { agentMatches, pickAgent } from './agent-router';

function agent(name: string, match: Partial<ResolvedAgent['match']> = {}): ResolvedAgent {
    return { name, match: { file: [], path: [], project: [], ...match } } as ResolvedAgent;
}

function configuration(chat: string[], agents: ResolvedAgent[]): Configuration {
    return {
        agents: new Map(agents.map(a => [a.name, a])),
        rosters: { chat, completion: [], compression: [], refactor: [] }
    } as unknown as Configuration;
}

describe('AgentRouter', () => {
    const cases: Array<[string, Partial<ResolvedAgent['match']>, { file?: string; project?: string }, boolean]> = [
        ['no rules match anything', {}, {}, true],
        ['a file glob matches the basename', { file: ['*.ts', '*.tsx'] }, { file: 'src/ui/app.tsx' }, true],
        ['a file glob refuses another extension', { file: ['*.ts'] }, { file: 'src/app.py' }, false],
        ['file rules need a file', { file: ['*.ts'] }, {}, false],
        ['a path glob matches the relative path', { path: ['src/**'] }, { file: 'src/deep/x.ts' }, true],
        ['a path glob refuses another folder', { path: ['src/**'] }, { file: 'test/x.ts' }, false],
        ['a project glob', { project: ['qode*'] }, { project: 'qodeassist' }, true],
        ['every given list must match', { file: ['*.ts'], project: ['other'] }, { file: 'a.ts', project: 'qodeassist' }, false],
        ['dot files count', { path: ['**/*.json'] }, { file: '.vscode/settings.json' }, true]
    ];
    for (const [name, match, context, expected] of cases) {
        it(`${name}`, () => {
            assert.equal(agentMatches(agent('a', match), context), expected);
        });
    }

    it('picks the first roster entry whose rules fit, in roster order', () => {
        const config = configuration(['python-only', 'ts-only', 'fallback'], [
            agent('fallback'), agent('ts-only', { file: ['*.ts'] }), agent('python-only', { file: ['*.py'] })
        ]);
        assert.equal(pickAgent(config, 'chat', { file: 'a.ts' })?.name, 'ts-only');
        assert.equal(pickAgent(config, 'chat', { file: 'a.py' })?.name, 'python-only');
        assert.equal(pickAgent(config, 'chat', {})?.name, 'fallback');
        assert.equal(pickAgent(config, 'completion', {}), undefined);
    });
});
