import * as assert from 'node:assert/strict';
import { ResolvedAgent } from '../../agents/configuration-loader';
import { HistoryMessage } from '../../context/conversation-history';
import { EnvFacts, formatFile } from '../../context/env-block';
import { SessionEvent } from '../../session/session-events';
import { SessionManager } from '../../session/session-manager';
import { RefactorRequest, runRefactor } from './refactor-feature';

/** A session that records its layers and answers with one fenced block. */
function recordingSessions(layers: Map<string, string>): SessionManager {
    let listener: (events: readonly SessionEvent[]) => void = () => undefined;
    const history: HistoryMessage[] = [];
    const session = {
        history,
        setLayer: (name: string, text: string) => layers.set(name, text),
        setThinking: () => undefined,
        cancel: async () => undefined,
        send: async () => {
            history.push({ role: 'assistant', blocks: [{ type: 'text', text: '```ts\nconst b = 2;\n```' }] });
            listener([{ type: 'RequestStarted', requestId: 'r1' }, { type: 'Finished', requestId: 'r1', stopReason: 'end_turn' }]);
            return 'r1';
        }
    };
    return {
        acquire: async (_agent: string, onEvents: (events: readonly SessionEvent[]) => void) => {
            listener = onEvents;
            return session;
        },
        release: async () => undefined
    } as unknown as SessionManager;
}

describe('runRefactor', () => {
    const request: RefactorRequest = {
        target: { filePath: 'src/a.ts', language: 'typescript', text: 'const a = 1;\n', selection: { start: 0, end: 12 }, cursor: 0 },
        instruction: 'rename a to b', indent: { insertSpaces: true, tabSize: 4 }
    };
    const environment: EnvFacts = { workspaceName: 'shop', workspaceRoot: '/home/ann/shop', os: 'Linux', branch: 'main', activeFile: 'src/a.ts', language: 'typescript' };
    const agent = { name: 'refactorer' } as ResolvedAgent;

    it('sets the env.project layer from the request\'s environment, the file line staying in the refactor layer alone', async () => {
        const layers = new Map<string, string>();
        const result = await runRefactor({ ...request, environment }, { agent, sessions: recordingSessions(layers) });
        assert.equal(result.text, 'const b = 2;');
        assert.equal(layers.get('env.project'), 'Workspace: shop (/home/ann/shop)\nOS: Linux\nGit branch: main');
        assert.ok(layers.get('refactor')!.includes(formatFile(environment)));
    });

    it('sets no env.project layer without an environment', async () => {
        const layers = new Map<string, string>();
        await runRefactor(request, { agent, sessions: recordingSessions(layers) });
        assert.deepEqual([...layers.keys()], ['refactor']);
    });
});
