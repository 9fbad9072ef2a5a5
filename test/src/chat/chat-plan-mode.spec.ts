import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatEvent, ChatFeature, ChatStorage, ConfigurationService, EnvironmentSecretsStore, PermissionRequest, QodeAssistRuntime } from '@qodeassist/core';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';

/** Plan mode over the fake provider: what the model is offered, what runs, and what Act carries. */
describe('plan mode and Act in the chat', () => {
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();
    const storage: ChatStorage = { location: 'user' };
    const asked: PermissionRequest[] = [];
    const ended: string[] = [];
    let home: string;
    let runtime: QodeAssistRuntime;
    let configuration: ConfigurationService;
    let feature: ChatFeature;

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url, 'fake-openai');
        fixture.write(join(fixture.workspace, 'src', 'app.ts'), 'export const port = 8080;\n');
        configuration = new ConfigurationService(fixture.roots);
    });
    after(async () => {
        configuration.dispose();
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => {
        server.reset();
        asked.length = 0;
        ended.length = 0;
        home = mkdtempSync(join(tmpdir(), 'qodeassist-plan-'));
        runtime = new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS), userHome: home });
        feature = new ChatFeature({ runtime, configurations: { forWorkspace: () => configuration }, userHome: home });
        feature.setHost({
            onEvents: (_id, events: readonly ChatEvent[]) => events.forEach(event => ['Finished', 'Failed'].includes(event.type) && ended.push(event.type)),
            onNotice: () => undefined,
            requestToolPermission: async (_owner, request) => { asked.push(request); return 'allow-once'; }
        });
    });
    afterEach(async () => {
        feature.dispose();
        await feature.saved();
        runtime.dispose();
        rmSync(home, { recursive: true, force: true });
    });

    async function send(chatId: string, text: string, options: Record<string, unknown>): Promise<void> {
        const count = ended.length;
        await feature.send(chatId, { text, attachments: [] }, { workspacePath: fixture.workspace, ...options });
        while (ended.length === count) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        assert.equal(ended.at(-1), 'Finished');
    }
    const body = (index: number) => JSON.parse(server.requests[index].body) as { messages: Array<{ role: string; content: unknown }>; tools?: Array<{ function: { name: string } }> };
    const toolNames = (index: number) => (body(index).tools ?? []).map(tool => tool.function.name).sort();

    it('plan mode offers read tools only, refuses a write without running it, and Act brings the tools back with the plan and its checklist pinned', async () => {
        const { chatId } = await feature.open(storage);
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 't1', name: 'todo', arguments: { action: 'add', text: 'Change the port to 9090' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'w1', name: 'create_file', arguments: { path: 'sneaky.txt', content: 'written in plan mode' } }]) },
            { kind: 'replay', recording: openAITextRecording('Plan:\n1. Change the port to 9090 in src/app.ts') }
        );
        await send(chatId, 'Plan the port change', { mode: 'plan' });

        const offered = toolNames(0);
        assert.ok(offered.includes('read_file') && offered.includes('todo'), offered.join(', '));
        for (const tool of ['create_file', 'edit_file', 'execute_terminal_command']) {
            assert.ok(!offered.includes(tool), `${tool} is offered in plan mode`);
        }
        assert.match(JSON.stringify(body(0).messages[0]), /You are in plan mode/);
        assert.ok(!existsSync(join(fixture.workspace, 'sneaky.txt')), 'the write did not run');
        assert.deepEqual(asked, [], 'nothing was even asked');
        const refusal = body(2).messages.find(message => message.role === 'tool' && JSON.stringify(message.content).includes('not available in plan mode'));
        assert.ok(refusal, 'the model was told the write is not available in plan mode');

        server.enqueue({ kind: 'replay', recording: openAITextRecording('On it.') });
        await send(chatId, 'Go ahead', { mode: 'act' });
        const act = server.requests.length - 1;
        assert.ok(toolNames(act).includes('edit_file') && toolNames(act).includes('create_file'), toolNames(act).join(', '));
        const sent = JSON.stringify(body(act).messages);
        assert.ok(!sent.includes('You are in plan mode'));
        assert.match(sent, /The plan agreed in plan mode.*Change the port to 9090 in src\/app\.ts.*Checklist now:\\n\[ \] 1\. Change the port to 9090/);
    });

    it('the plan as the user edited it is pinned instead of the answer', async () => {
        const { chatId } = await feature.open(storage);
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Plan: 1. rewrite everything') });
        await send(chatId, 'Plan it', { mode: 'plan' });
        server.enqueue({ kind: 'replay', recording: openAITextRecording('Ok.') });
        await send(chatId, 'Do it', { plan: '1. Only change the port' });
        const sent = JSON.stringify(body(1).messages);
        assert.match(sent, /The plan agreed in plan mode.*1\. Only change the port/);
        assert.ok(!/The plan agreed[^"]*rewrite everything/.test(sent), 'the edited plan replaces the answer in the pin');
    });
});
