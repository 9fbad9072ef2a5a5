import '@theia/core/shared/reflect-metadata';
import * as assert from 'node:assert/strict';
import { ConfigurationService, EnvironmentSecretsStore, QodeAssistRuntime } from '@qodeassist/core';
import { ConfigFixture, FAKE_KEYS, FakeProviderServer, ollamaGenerateRecording, writeFakeAgents } from '@qodeassist/test';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { NextEditOtherFile, NextEditQuery } from '../common/completion-protocol';
import { QodeAssistCompletionServiceImpl } from './completion-service-impl';

describe('next edit suggestions through the completion service', () => {
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    let configuration: ConfigurationService;
    let service: QodeAssistCompletionServiceImpl;
    let nextId = 1;
    const SECRET = 'sk-live-DO-NOT-SEND-4242';

    const query = (relativePath: string, text: string, previous: string, overrides: Partial<NextEditQuery> = {}): NextEditQuery => ({
        id: nextId++, workspacePath: fixture.workspace, file: join(fixture.workspace, relativePath), relativePath, language: 'typescript',
        text: text.replace('█', ''), offset: text.indexOf('█'), previous, version: 3, useGitignore: true, ...overrides
    });

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url);
        fixture.project_('agents/fake-zeta.toml', 'schema_version = 1\nname = "fake-zeta"\nextends = "zeta-ollama"\nprovider_instance = "fake-ollama-provider"\nmodel = "fake-model"\n');
        fixture.project_('agents/rosters.toml', 'schema_version = 1\n[next_edit]\nagents = ["fake-zeta"]\n');
        fixture.write(join(fixture.workspace, '.qodeassistignore'), 'secret/\n');
        configuration = new ConfigurationService(fixture.roots);
    });
    after(async () => {
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => {
        server.reset();
        service = new QodeAssistCompletionServiceImpl(new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS) }), { forWorkspace: () => configuration });
    });
    afterEach(() => service.dispose());

    it('asks the [next_edit] roster\'s agent and answers with the edits for the queried version', async () => {
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['<|editable_region_start|>\nlet total = 0;\ntotal += 1;\n<|editable_region_end|>']) });
        const answer = await service.nextEdit(query('src/a.ts', 'let total█ = 0;\nsum += 1;', 'let sum = 0;\nsum += 1;'));
        assert.equal(answer.error, undefined);
        assert.deepEqual([answer.edits, answer.version, answer.agent], [[{ offset: 15, length: 3, text: 'total' }], 3, 'fake-zeta']);
        assert.equal(server.requests.length, 1);
    });

    it('attack: an ignored file\'s text (a key in it) never reaches a model, and neither does an oversized file', async () => {
        const ignored = await service.nextEdit(query('secret/keys.ts', `const key = "${SECRET}";█`, 'const key = "";'));
        assert.match(ignored.skipped ?? '', /secret\/keys\.ts is excluded by \.qodeassistignore or \.gitignore/);
        const huge = await service.nextEdit(query('src/big.ts', `${'x'.repeat(1_000_001)}█`, ''));
        assert.match(huge.skipped ?? '', /more than 1,000,000 characters/);
        assert.equal(server.requests.length, 0, 'no request at all');
        assert.ok(!server.requests.some(request => request.body.includes(SECRET)));
    });

    it('attack: another file\'s recent edit reaches the model; an ignored file\'s, a linked-in ignored file\'s and an outside file\'s never do', async () => {
        fixture.write(join(fixture.workspace, 'src/b.ts'), 'const b = total;\n');
        const keys = fixture.write(join(fixture.workspace, 'secret/keys.ts'), `const key = "${SECRET}";\n`);
        symlinkSync(keys, join(fixture.workspace, 'src/keys-link.ts'));
        const outside = fixture.write(join(fixture.root, 'outside/notes.ts'), 'OUTSIDE-MARKER-77\n');
        const other = (path: string, previous: string, text: string, ageMs: number): NextEditOtherFile => ({ path, previous, text, startLine: 10, line: 10, ageMs });
        server.enqueue({ kind: 'replay', recording: ollamaGenerateRecording(['<|editable_region_start|>\nlet total = 0;\n<|editable_region_end|>']) });
        const answer = await service.nextEdit(query('src/a.ts', 'let total█ = 0;', 'let sum = 0;', {
            otherEdits: [
                other(keys, 'const key = "";', `const key = "${SECRET}";`, 100),
                other(join(fixture.workspace, 'src/keys-link.ts'), 'const key = "";', `const key = "${SECRET}-LINKED";`, 200),
                other(outside, '', 'OUTSIDE-MARKER-77', 300),
                other(join(fixture.workspace, 'src/b.ts'), 'const b = sum;', 'const b = total;', 400)
            ]
        }));
        assert.equal(answer.error, undefined);
        const body = server.requests[0].body;
        assert.ok(body.includes('User edited \\"src/b.ts\\"') && body.includes('@@ -11,1 +11,1 @@\\n-const b = sum;\\n+const b = total;'), 'the other file\'s edit, with its own line numbers');
        assert.ok(!body.includes(SECRET), 'no byte of the ignored file\'s edit, directly or through a link');
        assert.ok(!body.includes('OUTSIDE-MARKER') && !body.includes('notes.ts'), 'nothing of the file outside the workspace');
    });

    it('a cancelled query answers cancelled, not an error', async () => {
        server.enqueue({ kind: 'hang' });
        const pending = service.nextEdit(query('src/a.ts', 'let a█ = 0;', 'let = 0;', { id: 77 }));
        const deadline = Date.now() + 5000;
        while (server.requests.length === 0 && Date.now() < deadline) {
            await new Promise(resolve => setTimeout(resolve, 10));
        }
        await service.cancelNextEdit(77);
        const answer = await pending;
        assert.deepEqual([answer.cancelled, answer.error, answer.edits], [true, undefined, []]);
    });
});
