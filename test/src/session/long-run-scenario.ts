import {
    ConfigurationService, configuredAgentResolver, ContentLoader, ContextAssembler, ContextManifest, createBuiltinTools, Diagnostic, EnvironmentSecretsStore,
    SessionEvent, SessionManager, TokenEstimator, ToolContributorRegistry, ToolKitExecutor, WorkspaceFiles
} from '@qodeassist/core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';

/** A file big enough that reading it again and again pressures a small window. */
function appSource(step: string): string {
    const filler = Array.from({ length: 60 }, (_, i) => `export function helper${i}(value: number): number {\n    return value * ${i} + ${i};\n}`).join('\n');
    return `// app.js\nexport const step = ${step};\n${filler}\n`;
}

/** A build that fails, gcc-style, while the file holds a BROKEN marker. */
const BUILD_SCRIPT = `const text = require('fs').readFileSync('src/app.js', 'utf8');
const broken = /BROKEN(\\d+)/.exec(text);
if (broken) { console.log('src/app.js:2:21: error: ' + broken[0] + ' is not defined'); process.exit(1); }
console.log('build ok');
`;

type Call = { name: string; arguments: Record<string, unknown> };

/**
 * The usage a real provider would report: about four characters a token over what the model
 * reads — message text, tool calls, tool schemas — not the JSON punctuation of the body.
 */
function promptTokensOf(request: { messages: Array<{ content: unknown; tool_calls?: unknown }>; tools?: unknown }): number {
    const text = (content: unknown): number => typeof content === 'string' ? content.length
        : Array.isArray(content) ? content.reduce((sum: number, part: { text?: string }) => sum + (part.text?.length ?? 0), 0) : 0;
    const chars = request.messages.reduce((sum, message) => sum + text(message.content) + (message.tool_calls ? JSON.stringify(message.tool_calls).length : 0), 0)
        + (request.tools ? JSON.stringify(request.tools).length : 0);
    return Math.round(chars / 4);
}

/**
 * The script: eight cycles of read → break → build (fails) → problems → fix → build (passes),
 * then a search and a todo: 50 tool rounds in one request, against a 10,000-token window.
 */
export function longRunScript(): Call[] {
    const calls: Call[] = [];
    for (let cycle = 0; cycle < 8; cycle++) {
        calls.push(
            { name: 'read_file', arguments: { path: 'src/app.js' } },
            { name: 'edit_file', arguments: { path: 'src/app.js', old_text: `export const step = ${cycle};`, new_text: `export const step = BROKEN${cycle};` } },
            { name: 'build_project', arguments: {} },
            { name: 'get_diagnostics', arguments: {} },
            { name: 'edit_file', arguments: { path: 'src/app.js', old_text: `export const step = BROKEN${cycle};`, new_text: `export const step = ${cycle + 1};` } },
            { name: 'build_project', arguments: {} }
        );
    }
    calls.push({ name: 'search_project', arguments: { query: 'helper7' } }, { name: 'todo', arguments: { action: 'add', text: 'write the release note' } });
    return calls;
}

export interface LongRunRequest {
    round: number;
    body: string;
    manifest?: ContextManifest;
}

export interface LongRunResult {
    requests: LongRunRequest[];
    events: SessionEvent[];
    limit: number;
}

/** Runs the script through a real Session (re-assembling every round) against the fake provider. */
export async function runLongScenario(options: { reassembleRounds?: boolean } = {}): Promise<LongRunResult> {
    const fixture = new ConfigFixture();
    const server = new FakeProviderServer();
    await server.start();
    try {
        writeFakeAgents(fixture, server.url);
        fixture.project_('agents/long-run.toml', 'schema_version = 1\nname = "long-run"\nextends = "openai-base"\nprovider_instance = "fake-openai-provider"\nmodel = "fake-model"\ncontext_window = 10000\n\n[body]\nmax_completion_tokens = 1000\n');
        const workspace = fixture.workspace;
        fixture.write(join(workspace, 'src', 'app.js'), appSource('0'));
        fixture.write(join(workspace, 'build.js'), BUILD_SCRIPT);
        const script = longRunScript();
        server.setDefault({
            kind: 'dynamic',
            respond: body => {
                const request = JSON.parse(body) as { messages: Array<{ role: string; content: unknown; tool_calls?: unknown }>; tools?: unknown };
                const done = request.messages.filter(message => message.role === 'tool').length;
                const call = script[done];
                const promptTokens = promptTokensOf(request);
                return call
                    ? { kind: 'replay', recording: openAIToolCallsRecording([{ id: `call_${done + 1}`, name: call.name, arguments: call.arguments }], promptTokens) }
                    : { kind: 'replay', recording: openAITextRecording('All eight cycles are done; the build passes.', promptTokens) };
            }
        });
        const diagnostics = {
            get: async (): Promise<Diagnostic[]> => {
                const broken = /BROKEN\d+/.exec(readFileSync(join(workspace, 'src', 'app.js'), 'utf8'));
                return broken ? [{ path: join(workspace, 'src', 'app.js'), line: 2, column: 21, severity: 'error', message: `${broken[0]} is not defined` }] : [];
            }
        };
        const registry = new ToolContributorRegistry();
        const tools = createBuiltinTools({ workspace, buildCommand: 'node build.js', diagnostics });
        registry.register(() => tools);
        const executor = new ToolKitExecutor(registry, 'long-run', { files: new WorkspaceFiles([workspace]), permissions: { ask: async () => 'allow-once' } });
        const configuration = new ConfigurationService(fixture.roots);
        const estimator = new TokenEstimator();
        const sessions = new SessionManager(configuredAgentResolver(() => configuration.current, new EnvironmentSecretsStore(FAKE_KEYS)), {
            assembler: new ContextAssembler(estimator, new ContentLoader()), estimator, maxToolRounds: 60, reassembleRounds: options.reassembleRounds ?? true
        });
        const events: SessionEvent[] = [];
        let settle!: () => void;
        const finished = new Promise<void>(resolve => { settle = resolve; });
        const session = await sessions.acquire('long-run', batch => {
            events.push(...batch);
            if (batch.some(event => event.type === 'Finished' || event.type === 'Failed' || event.type === 'Cancelled')) {
                settle();
            }
        });
        await session.send([{ type: 'text', text: 'Cycle the step constant eight times, keeping the build green in the end.' }], { tools: executor.definitions(), executor });
        await Promise.race([finished, new Promise((_, reject) => setTimeout(() => reject(new Error('the long run did not finish within 120 s')), 120_000).unref())]);
        const manifests = events.filter((event): event is Extract<SessionEvent, { type: 'Manifest' }> => event.type === 'Manifest').map(event => event.manifest);
        const posts = server.requests.filter(request => request.method === 'POST');
        configuration.dispose();
        return {
            requests: posts.map((request, round) => ({ round, body: request.body, manifest: manifests[round] })),
            events, limit: manifests[0]?.limit ?? 0
        };
    } finally {
        await server.stop();
        fixture.dispose();
    }
}
