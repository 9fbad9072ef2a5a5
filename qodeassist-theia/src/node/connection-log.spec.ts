import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { ConfigurationService, EnvironmentSecretsStore, QodeAssistRuntime } from '@qodeassist/core';
import { ConfigFixture, FAKE_KEYS, FakeProviderServer, openAITextStreamRecording, writeFakeAgents } from '@qodeassist/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogLine } from '../common/log-protocol';
import { ConnectionLog } from './connection-log';
import { QodeAssistRefactorServiceImpl } from './refactor-service-impl';

const settle = () => new Promise(resolve => setImmediate(resolve));

describe('ConnectionLog: the window\'s QodeAssist log', () => {
    const batches: LogLine[][] = [];
    let log: ConnectionLog;

    beforeEach(() => {
        batches.length = 0;
        log = new ConnectionLog();
        log.setClient({ onLog: lines => batches.push(lines) });
    });

    it('filters by the chosen level, sends a burst as one batch, and redacts anything shaped like a key', async () => {
        log.log('debug', 'qodeassist.wire', 'not at warn');
        log.log('warn', 'qodeassist.session', 'request r1 failed: Auth: key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 refused');
        log.log('error', 'qodeassist.mcp', 'server gone');
        await settle();
        assert.equal(batches.length, 1, 'one message for the burst');
        assert.deepEqual(batches[0].map(line => [line.level, line.category]), [['warn', 'qodeassist.session'], ['error', 'qodeassist.mcp']]);
        assert.doesNotMatch(batches[0][0].message, /abcdefghijklmnopqrstuvwxyz0123/);

        await log.setLevel('off');
        log.log('error', 'qodeassist.mcp', 'silent');
        await log.setLevel('debug');
        log.log('debug', 'qodeassist.wire', 'body');
        await settle();
        assert.deepEqual(batches.slice(1).flat().map(line => line.message), ['body']);
    });

    it('at info and debug, a refactor logs its request (agent, model, size) and then its manifest and body', async function () {
        this.timeout(20_000);
        const server = new FakeProviderServer();
        const fixture = new ConfigFixture();
        const home = mkdtempSync(join(tmpdir(), 'qodeassist-log-home-'));
        await server.start();
        try {
            writeFakeAgents(fixture, server.url, 'fake-openai');
            fixture.project_('agents/rosters.toml', 'schema_version = 1\n[refactor]\nagents = ["fake-openai"]\n');
            const configuration = new ConfigurationService(fixture.roots);
            const service = new QodeAssistRefactorServiceImpl(new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS), logger: log }), { forWorkspace: () => configuration }, home);
            service.setClient({ onRefactorProgress: () => undefined, requestToolPermission: async () => 'deny', getDiagnostics: async () => [], readOpenDocument: async () => undefined, writeDocument: async () => undefined });
            await log.setLevel('debug');
            server.enqueue({ kind: 'replay', recording: openAITextStreamRecording(['```ts\nconst x = 2;\n```']) });
            const text = 'const x = 1;\n';
            await service.refactor({
                id: 'r1', workspacePath: fixture.workspace, file: join(fixture.workspace, 'a.ts'), relativePath: 'a.ts', language: 'typescript', text,
                selection: { start: 0, end: text.length }, cursor: 0, instruction: 'make it two', tools: false, thinking: false,
                indent: { insertSpaces: true, tabSize: 4 }, openFilesBudget: 0
            });
            await settle();
            const lines = batches.flat();
            assert.ok(lines.some(line => line.level === 'info' && /fake-openai \(fake-model\) at http:\/\/127\.0\.0\.1:\d+/.test(line.message)), lines.map(line => line.message).join('\n'));
            assert.ok(lines.some(line => line.category === 'qodeassist.context' && /manifest/.test(line.message)));
            assert.ok(lines.some(line => line.category === 'qodeassist.wire' && /make it two/.test(line.message)), 'the request body at debug');
            assert.ok(!lines.some(line => Object.values(FAKE_KEYS).some(key => key && line.message.includes(key))), 'no key in any line');
            service.dispose();
        } finally {
            await server.stop();
            fixture.dispose();
            rmSync(home, { recursive: true, force: true });
        }
    });
});
