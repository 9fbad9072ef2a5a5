import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigFixture } from '../config/config-fixture';
import { FAKE_KEYS, writeFakeAgents } from '../config/fake-agents';
import { closedLoopbackPort } from '../fake-provider/closed-port';
import { FakeProviderServer } from '../fake-provider/fake-provider-server';
import { openAITextRecording, openAIToolCallsRecording } from '../fake-provider/recordings';

const BIN = join(__dirname, '..', '..', '..', 'qodeassist-core', 'bin', 'qodeassist-bench.js');

interface Run {
    code: number | null;
    stdout: string;
    stderr: string;
}

describe('qodeassist-bench (spawned)', function () {
    this.timeout(30_000);
    const server = new FakeProviderServer();
    const fixture = new ConfigFixture();

    function bench(args: string[], options: { env?: Record<string, string>; interruptWhen?: (stdout: string) => boolean } = {}): Promise<Run> {
        return new Promise(resolve => {
            const child = spawn(process.execPath, [BIN, ...args], {
                cwd: fixture.workspace,
                env: { PATH: process.env.PATH, HOME: join(fixture.root, 'home'), ...FAKE_KEYS, ...options.env }
            });
            let stdout = '';
            let stderr = '';
            let interrupted = false;
            child.stdout.on('data', chunk => {
                stdout += chunk;
                if (!interrupted && options.interruptWhen?.(stdout)) {
                    interrupted = true;
                    child.kill('SIGINT');
                }
            });
            child.stderr.on('data', chunk => { stderr += chunk; });
            child.on('close', code => resolve({ code, stdout, stderr }));
        });
    }

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url, 'fake-openai');
        fixture.project_('agents/fake-fim.toml', 'schema_version = 1\nname = "fake-fim"\nextends = "ollama-fim-qwen25coder"\nprovider_instance = "fake-ollama-provider"\n');
        fixture.write(join(fixture.workspace, 'src', 'reverse.ts'), 'export function reverse(text: string): string {\n<CURSOR>\n}\n');
        fixture.write(join(fixture.workspace, 'notes.md'), 'The API is frozen until Friday.');
    });
    after(async () => {
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => server.reset());

    const workspaceArgs = () => ['--workspace', fixture.workspace, '--config-dir', fixture.user, '--trust-workspace'];

    it('validate: exit 0 and a summary for a clean configuration; the project\'s roster replacing QodeAssist\'s is a notice', async () => {
        const run = await bench(['validate', ...workspaceArgs()]);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, /\d+ agents, \d+ providers, 6 roles; 0 error\(s\), 1 notice\(s\)\./);
        assert.match(run.stdout, /rosters\.toml:\d+ \[chat\.agents\]: notice: the project's chat roster \[fake-openai\] replaces QodeAssist's chat roster/);
    });

    it('validate: exit 1 with file:line, field and fix for a broken file', async () => {
        const broken = fixture.user_('agents/broken.toml', 'schema_version = 1\nname = "broken"\nextends = "claude-chat"\nmodle = "x"\n');
        try {
            const run = await bench(['validate', ...workspaceArgs()]);
            assert.equal(run.code, 1);
            assert.ok(run.stdout.includes(`${broken}:4 [modle]: error: unknown key "modle" — did you mean "model"?`), run.stdout);
        } finally {
            fixture.write(broken, 'schema_version = 1\nname = "broken"\nextends = "claude-chat"\n');
        }
    });

    it('agents --json: one line per agent with provider, model and rosters', async () => {
        const run = await bench(['agents', '--json', ...workspaceArgs()]);
        assert.equal(run.code, 0);
        const rows = run.stdout.trim().split('\n').map(line => JSON.parse(line));
        assert.deepEqual(rows.find(row => row.name === 'fake-openai'), {
            name: 'fake-openai', provider: 'fake-openai-provider', client_api: 'openai_compatible', model: 'fake-model', protocol: 'openai-chat', rosters: ['chat']
        });
    });

    it('without --trust-workspace the workspace\'s configuration is not read, one notice names what was skipped, and nothing is sent', async () => {
        const run = await bench(['agents', '--json', '--workspace', fixture.workspace, '--config-dir', fixture.user]);
        assert.equal(run.code, 0, run.stderr);
        const names = run.stdout.trim().split('\n').map(line => JSON.parse(line).name);
        assert.ok(names.includes('openai-chat'), 'bundled agents are there');
        assert.ok(!names.includes('fake-openai') && !names.includes('fake-fim'), 'project agents are not');
        assert.equal(run.stderr.split('\n').filter(line => line.startsWith('Notice:')).length, 1, run.stderr);
        assert.match(run.stderr, /^Notice: project configuration not loaded: workspace not trusted \(skipped \.qodeassist\/agents, \.qodeassist\/providers\)\. Pass --trust-workspace to load it\.$/m);
        const chat = await bench(['chat', '--agent', 'fake-openai', '--message', 'hi', '--workspace', fixture.workspace, '--config-dir', fixture.user]);
        assert.equal(chat.code, 2, chat.stderr);
        assert.match(chat.stderr, /fake-openai/);
        assert.equal(server.requests.length, 0);
    });

    it('chat: prints the answer, sends the attachment, and shows the manifest on stderr', async () => {
        const run = await bench(['chat', '--agent', 'fake-claude', '--message', 'Summarize the notes', '--file', 'notes.md', ...workspaceArgs()]);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, 'Hello! How can I help you today?\n');
        assert.match(run.stderr, /estimate: ~\d+ \/ limit 191808/);
        const body = JSON.parse(server.requests[0].body);
        assert.equal(server.requests[0].headers['x-api-key'], FAKE_KEYS.FAKE_CLAUDE_API_KEY);
        // As the IDE's chat sends it: the attachment first, then the typed text.
        assert.match(body.messages[0].content[0].text, /Attached file notes.md:\n```\nThe API is frozen until Friday.\n```/);
        assert.equal(body.messages[0].content.at(-1).text, 'Summarize the notes');
    });

    it('chat --json: every event as a JSON line, ending with Finished', async () => {
        const run = await bench(['chat', '--agent', 'fake-openai', '--message', 'hi', '--json', ...workspaceArgs()]);
        assert.equal(run.code, 0, run.stderr);
        const types = run.stdout.trim().split('\n').map(line => JSON.parse(line).type);
        assert.deepEqual([types[0], types[1], types.at(-2), types.at(-1)], ['RequestStarted', 'Manifest', 'MessageStop', 'Finished']);
        assert.equal(types.filter(type => type === 'TextDelta').length, 9);
    });

    it('complete: FIM at a cursor marker prints the completion', async () => {
        const run = await bench(['complete', '--agent', 'fake-fim', '--file', 'src/reverse.ts', '--cursor-marker', '<CURSOR>', ...workspaceArgs()]);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, '    return [...text].reverse().join(\'\');\n');
        const body = JSON.parse(server.requests[0].body);
        assert.equal(body.prompt, '<|fim_prefix|>export function reverse(text: string): string {\n<|fim_suffix|>\n}\n<|fim_middle|>');
    });

    it('complete: --line/--column are 1-based and checked', async () => {
        const ok = await bench(['complete', '--agent', 'fake-fim', '--file', 'src/reverse.ts', '--line', '2', '--column', '1', ...workspaceArgs()]);
        assert.equal(ok.code, 0, ok.stderr);
        assert.ok(JSON.parse(server.requests[0].body).prompt.includes('string {\n<|fim_suffix|><CURSOR>\n}'));
        const bad = await bench(['complete', '--agent', 'fake-fim', '--file', 'src/reverse.ts', '--line', '9', '--column', '1', ...workspaceArgs()]);
        assert.equal(bad.code, 2);
        assert.match(bad.stderr, /line 9 is outside the file \(1–4\)/);
    });

    it('refactor: the IDE\'s refactor prompt (marked selection in the refactor layer, the instruction as the message) and its cleaning', async () => {
        const fenced = [
            'data: {"choices":[{"index":0,"delta":{"content":"Here:\\n```ts\\nreturn Array.from(text).reverse().join(\'\');\\n```"},"finish_reason":null}]}\n\n',
            'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n', 'data: [DONE]\n\n'
        ].join('');
        server.enqueue({ kind: 'replay', recording: fenced });
        const run = await bench(['refactor', '--agent', 'fake-openai', '--file', 'src/reverse.ts', '--range', '2:1-2:9', '--instruction', 'use Array.from', ...workspaceArgs()]);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, 'return Array.from(text).reverse().join(\'\');\n');
        const messages = JSON.parse(server.requests[0].body).messages;
        assert.match(JSON.stringify(messages[0].content), /Active file: src\/reverse\.ts \(typescript\)[\s\S]*<selection_start><CURSOR><selection_end>/);
        assert.equal(messages.at(-1).content[0].text, 'use Array.from');
    });

    it('--provider-url sends elsewhere; a failure exits 1 with its category', async () => {
        const port = await closedLoopbackPort();
        const run = await bench(['chat', '--agent', 'fake-openai', '--message', 'hi', '--provider-url', `http://127.0.0.1:${port}/v1`, ...workspaceArgs()]);
        assert.equal(run.code, 1);
        assert.match(run.stderr, new RegExp(`^Network: http://127\\.0\\.0\\.1:${port} refused the connection`, 'm'));
        assert.equal(server.requests.length, 0);
    });

    it('--env reads keys from a .env file', async () => {
        const envFile = fixture.write(join(fixture.root, 'keys.env'), 'FAKE_GOOGLE_API_KEY=from-dotenv-123\n');
        const run = await bench(['chat', '--agent', 'fake-gemini', '--message', 'hi', '--env', envFile, ...workspaceArgs()], { env: { FAKE_GOOGLE_API_KEY: '' } });
        assert.equal(run.code, 0, run.stderr);
        assert.equal(server.requests[0].headers['x-goog-api-key'], 'from-dotenv-123');
    });

    it('chat --tools: reads and edits files in the workspace through the tool loop, writes only with --allow write', async () => {
        const edit = { path: 'src/reverse.ts', old_text: '<CURSOR>', new_text: '    return [...text].reverse().join(\'\');' };
        const script = () => server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'c1', name: 'read_file', arguments: { path: 'src/reverse.ts' } }]) },
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'c2', name: 'edit_file', arguments: edit }]) },
            { kind: 'replay', recording: openAITextRecording('Implemented reverse().') }
        );
        script();
        const readOnly = await bench(['chat', '--agent', 'fake-openai', '--message', 'implement reverse', '--tools', ...workspaceArgs()]);
        assert.equal(readOnly.code, 0, readOnly.stderr);
        assert.match(readOnly.stderr, /← edit_file \(error\): The user denied edit_file/);
        assert.match(readFileSync(join(fixture.workspace, 'src', 'reverse.ts'), 'utf8'), /<CURSOR>/);
        const second = JSON.parse(server.requests[1].body);
        assert.equal(second.messages.filter((message: { role: string }) => message.role === 'tool').at(-1).content, 'export function reverse(text: string): string {\n<CURSOR>\n}\n');
        assert.deepEqual(JSON.parse(server.requests[0].body).tools.map((tool: { function: { name: string } }) => tool.function.name),
            ['read_file', 'list_project_files', 'find_file', 'search_project', 'create_file', 'edit_file', 'todo', 'execute_terminal_command', 'load_skill']);

        server.reset();
        script();
        const writer = await bench(['chat', '--agent', 'fake-openai', '--message', 'implement reverse', '--tools', '--allow', 'read,write', ...workspaceArgs()]);
        assert.equal(writer.code, 0, writer.stderr);
        assert.equal(writer.stdout, 'Implemented reverse().\n');
        assert.equal(readFileSync(join(fixture.workspace, 'src', 'reverse.ts'), 'utf8'), 'export function reverse(text: string): string {\n    return [...text].reverse().join(\'\');\n}\n');
        fixture.write(join(fixture.workspace, 'src', 'reverse.ts'), 'export function reverse(text: string): string {\n<CURSOR>\n}\n');
    });

    it('chat --mode plan: read-class tools only, the plan asked for, and a write call refused without running', async () => {
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'p1', name: 'create_file', arguments: { path: 'planned.txt', content: 'no' } }]) },
            { kind: 'replay', recording: openAITextRecording('Plan: 1. write planned.txt') }
        );
        const run = await bench(['chat', '--agent', 'fake-openai', '--message', 'plan it', '--tools', '--allow', 'read,write', '--mode', 'plan', ...workspaceArgs()]);
        assert.equal(run.code, 0, run.stderr);
        const first = JSON.parse(server.requests[0].body);
        assert.deepEqual(first.tools.map((tool: { function: { name: string } }) => tool.function.name), ['read_file', 'list_project_files', 'find_file', 'search_project', 'todo', 'load_skill']);
        assert.match(JSON.stringify(first.messages), /You are in plan mode/);
        assert.ok(!existsSync(join(fixture.workspace, 'planned.txt')), 'the write did not run, even with --allow write');
        assert.match(run.stderr, /create_file is not available in plan mode/);
        assert.equal((await bench(['chat', '--agent', 'fake-openai', '--message', 'x', '--mode', 'yolo', ...workspaceArgs()])).code, 2);
    });

    it('chat --tools: build_project runs --build-command; a /skill invocation reaches the model in the user message', async () => {
        fixture.write(join(fixture.workspace, '.qodeassist', 'skills', 'release', 'SKILL.md'), '---\nname: release\ndescription: How we release\n---\nBump the version, then tag.\n');
        server.enqueue(
            { kind: 'replay', recording: openAIToolCallsRecording([{ id: 'b1', name: 'build_project', arguments: {} }]) },
            { kind: 'replay', recording: openAITextRecording('Build is green.') }
        );
        const run = await bench(['chat', '--agent', 'fake-openai', '--message', '/release for 1.2', '--tools', '--allow', 'read,execute',
            '--build-command', `${process.execPath} -e "console.log('compiled 3 files')"`, ...workspaceArgs()]);
        assert.equal(run.code, 0, run.stderr);
        const first = JSON.parse(server.requests[0].body);
        assert.deepEqual(first.messages.at(-1).content.map((part: { text: string }) => part.text), ['<skill name="release">\nBump the version, then tag.\n</skill>', 'for 1.2']);
        assert.ok(first.tools.some((tool: { function: { name: string } }) => tool.function.name === 'build_project'));
        const second = JSON.parse(server.requests[1].body);
        assert.match(second.messages.filter((message: { role: string }) => message.role === 'tool').at(-1).content, /^The build succeeded\.\n\[sandbox: (bubblewrap \(pid namespace[^\n]*|none — [^\n]*)\]\nOutput:\ncompiled 3 files/);
    });

    it('exit 2 for usage errors', async () => {
        for (const args of [['chat'], ['frobnicate'], ['chat', '--agent', 'fake-openai'], ['chat', '--bogus'], ['chat', '--agent', 'fake-openai', '--message', 'x', '--tools', '--allow', 'root']]) {
            const run = await bench([...args, ...workspaceArgs()]);
            assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
        }
    });

    it('Ctrl+C cancels the request cleanly and exits 130', async () => {
        server.enqueue({ kind: 'replay', fixture: 'openai-chat/markdown-answer.sse', chunkDelayMs: 100 });
        const run = await bench(['chat', '--agent', 'fake-openai', '--message', 'long', '--json', ...workspaceArgs()], { interruptWhen: out => out.includes('TextDelta') });
        assert.equal(run.code, 130, run.stderr);
        assert.equal(JSON.parse(run.stdout.trim().split('\n').at(-1)!).type, 'Cancelled');
        assert.equal(await server.requests[0].ended, 'aborted-by-client');
    });

    it('--timeout gives up and exits 1', async () => {
        server.enqueue({ kind: 'hang' });
        const run = await bench(['chat', '--agent', 'fake-openai', '--message', 'hi', '--timeout', '1', ...workspaceArgs()]);
        assert.equal(run.code, 1);
        assert.match(run.stderr, /no answer within 1 s/);
    });
});
