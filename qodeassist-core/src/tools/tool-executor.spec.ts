import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PermissionAnswer, PermissionRequest } from '../ports/permission-prompt';
import { ToolCall } from '../wire/assistant-turn';
import { CancelledError } from '../wire/error-info';
import { PROCESS_SECRETS } from '../wire/redaction';
import { FILE_TOOLS, hasRipgrep } from './file-tools';
import { createTodoTool } from './todo-tool';
import { toolDefinition } from './tool';
import { ToolContributorRegistry, ToolKitExecutor } from './tool-executor';
import { WorkspaceFiles } from './workspace-files';

describe('ToolKit', () => {
    let root: string;
    let asked: PermissionRequest[];
    let answers: PermissionAnswer[];
    let toolkit: ToolKitExecutor;
    let registry: ToolContributorRegistry;

    beforeEach(() => {
        root = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-tools-')));
        mkdirSync(join(root, 'src', 'util'), { recursive: true });
        mkdirSync(join(root, 'secrets'), { recursive: true });
        writeFileSync(join(root, 'src', 'main.ts'), 'import { add } from "./util/math";\n\nexport function main() {\n    // TODO: print the sum\n    return add(1, 2);\n}\n');
        writeFileSync(join(root, 'src', 'util', 'math.ts'), 'export function add(a: number, b: number) {\n    return a + b;\n}\n// todo later\n');
        writeFileSync(join(root, 'README.md'), '# Demo\nTODO: write docs\n');
        writeFileSync(join(root, 'secrets', 'key.txt'), 'TODO hidden');
        writeFileSync(join(root, '.qodeassistignore'), 'secrets/\n');
        writeFileSync(join(root, 'big.txt'), Array.from({ length: 2_500 }, (_, i) => `line ${i + 1}`).join('\n'));
        writeFileSync(join(root, 'image.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]));
        asked = [];
        answers = [];
        registry = new ToolContributorRegistry();
        const todo = createTodoTool();
        registry.register(() => [...FILE_TOOLS, todo]);
        toolkit = new ToolKitExecutor(registry, 'chat-1', {
            files: new WorkspaceFiles([root]),
            permissions: { ask: async request => { asked.push(request); return answers.shift() ?? 'deny'; } }
        });
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    const call = (name: string, args: Record<string, unknown>) => toolkit.execute({ callId: 'c', name, arguments: args } as ToolCall, { requestId: 'r' });

    it('attack: a workspace file holding a key QodeAssist holds (its own key file, a .env) reaches neither the model nor the view', async () => {
        const held = 'heldkey-0f9e8d7c6b5a';
        PROCESS_SECRETS.add(held);
        writeFileSync(join(root, 'keys.json'), JSON.stringify({ anthropic: held }));
        const seen: string[] = [];
        const watched = new ToolKitExecutor(registry, 'chat-1', { files: new WorkspaceFiles([root]), permissions: { ask: async () => 'deny' }, onOutcome: (_call, outcome) => void seen.push(outcome.content) });
        const result = await watched.execute({ callId: 'c', name: 'read_file', arguments: { path: 'keys.json' } } as ToolCall, { requestId: 'r' });
        assert.ok(!result.content.includes(held), result.content);
        assert.match(result.content, /\[REDACTED\]/);
        assert.ok(seen.length === 1 && !seen[0].includes(held));
    });

    it('offers every tool with a JSON schema', () => {
        const definitions = toolkit.definitions();
        assert.deepEqual(definitions.map(d => d.name), ['read_file', 'list_project_files', 'find_file', 'search_project', 'create_file', 'edit_file', 'todo']);
        assert.deepEqual(definitions[0].parameters.required, ['path']);
        assert.equal(definitions[0].parameters.additionalProperties, false);
    });

    it('derives each JSON schema once, and a definition changed by its user does not change the next one', () => {
        const first = toolkit.definitions();
        delete first[0].parameters.required;
        first[0].parameters.type = 'changed';
        const again = toolkit.definitions();
        assert.deepEqual(again[0].parameters.required, ['path']);
        assert.equal(again[0].parameters.type, 'object');
        assert.equal(again[0].parameters.$schema, undefined);
        // A todo tool made for another chat offers the same schema.
        assert.deepEqual(toolDefinition(createTodoTool()).parameters, again.find(definition => definition.name === 'todo')!.parameters);
    });

    it('read_file reads, ranges, and pages a large file with a clear marker', async () => {
        assert.deepEqual(await call('read_file', { path: 'src/util/math.ts' }), { content: 'export function add(a: number, b: number) {\n    return a + b;\n}\n// todo later\n', isError: undefined });
        assert.equal((await call('read_file', { path: 'src/util/math.ts', start_line: 2, end_line: 3 })).content, '    return a + b;\n}');
        const page = (await call('read_file', { path: 'big.txt' })).content;
        assert.ok(page.startsWith('line 1\n'));
        assert.ok(page.endsWith('line 2000\n[lines 1–2000 of 2500 shown; call read_file again with start_line=2001 for more]'));
    });

    it('read_file prefers an open editor\'s unsaved text and says so', async () => {
        const withEditor = new ToolKitExecutor(registry, 'chat-e', {
            files: new WorkspaceFiles([root]), permissions: { ask: async () => 'deny' },
            documents: { readOpen: async path => path === join(root, 'src', 'util', 'math.ts') ? 'export const unsaved = true;\n' : undefined }
        });
        const read = (path: string) => withEditor.execute({ callId: 'c', name: 'read_file', arguments: { path } }, { requestId: 'r' });
        assert.equal((await read('src/util/math.ts')).content, 'export const unsaved = true;\n\n[this is the editor\'s text, with changes not yet saved]');
        assert.match((await read('src/main.ts')).content, /^import \{ add \}/);
    });

    it('read_file explains missing, binary, folder, ignored and outside paths', async () => {
        const cases: Array<[string, RegExp]> = [
            ['src/nope.ts', /"src\/nope.ts" does not exist. Use list_project_files or find_file/],
            ['image.bin', /binary file/], ['src', /is a folder/], ['secrets/key.txt', /excluded by the workspace's ignore rules/],
            ['../etc/passwd', /outside the workspace/]
        ];
        for (const [path, message] of cases) {
            const result = await call('read_file', { path });
            assert.equal(result.isError, true, path);
            assert.match(result.content, message);
        }
    });

    it('list_project_files skips ignored files and caps the list with a count', async () => {
        assert.equal((await call('list_project_files', {})).content, '.qodeassistignore\nREADME.md\nbig.txt\nimage.bin\nsrc/main.ts\nsrc/util/math.ts');
        assert.equal((await call('list_project_files', { path: 'src', max_results: 1 })).content, 'src/main.ts\n[1 more files not shown; narrow the path or raise max_results]');
    });

    it('find_file ranks exact names, then paths, then fuzzy matches', async () => {
        assert.equal((await call('find_file', { query: 'math.ts' })).content, 'src/util/math.ts');
        assert.equal((await call('find_file', { query: 'util' })).content, 'src/util/math.ts');
        assert.equal((await call('find_file', { query: 'smts' })).content, 'src/main.ts\nsrc/util/math.ts');
    });

    for (const engine of ['js', 'ripgrep'] as const) {
        describe(`search_project with the ${engine} engine`, () => {
            before(async () => {
                if (engine === 'js') {
                    process.env.QODEASSIST_SEARCH_ENGINE = 'js';
                } else {
                    assert.equal(await hasRipgrep(), true, 'rg must be installed for this test (npm test installs the Debian package ripgrep)');
                }
            });
            after(() => { delete process.env.QODEASSIST_SEARCH_ENGINE; });

        it('search_project finds text with context, honours case, glob, regex and ignore rules', async () => {
            assert.equal((await call('search_project', { query: 'TODO', case_sensitive: true, context_lines: 0 })).content,
                'README.md:2: TODO: write docs\nsrc/main.ts:4:     // TODO: print the sum');
            assert.equal((await call('search_project', { query: 'todo', glob: 'src/**/*.ts', context_lines: 1 })).content,
                'src/main.ts-3- export function main() {\nsrc/main.ts:4:     // TODO: print the sum\nsrc/main.ts-5-     return add(1, 2);\nsrc/util/math.ts-3- }\nsrc/util/math.ts:4: // todo later');
            assert.equal((await call('search_project', { query: 'add\\(\\d', regex: true, context_lines: 0 })).content, 'src/main.ts:5:     return add(1, 2);');
            assert.match((await call('search_project', { query: 'add(', regex: true })).content, /regular expression is invalid/);
            assert.equal((await call('search_project', { query: 'line', max_results: 2, context_lines: 0, glob: 'big.txt' })).content,
                'big.txt:1: line 1\nbig.txt:2: line 2\n[2498 more matches not shown; narrow the query or the glob]');
        });
        });
    }

    it('asks before writing: allow once asks again, allow for this chat does not, deny tells the model', async () => {
        answers.push('allow-once', 'allow-chat', 'deny');
        assert.equal((await call('create_file', { path: 'src/one.ts', content: '1' })).content, 'Created src/one.ts (1 lines).');
        assert.equal((await call('create_file', { path: 'src/two.ts', content: '2' })).isError, undefined);
        assert.equal((await call('create_file', { path: 'src/three.ts', content: '3' })).isError, undefined);
        assert.equal(asked.length, 2, 'after allow-chat, create_file is not asked again in this chat');
        assert.deepEqual(asked[0], { tool: 'create_file', permission: 'write', arguments: { path: 'src/one.ts', content: '1' }, chatId: 'chat-1' });
        const denied = await call('edit_file', { path: 'src/one.ts', old_text: '1', new_text: 'one' });
        assert.equal(denied.isError, true);
        assert.match(denied.content, /The user denied edit_file/);
        assert.equal(readFileSync(join(root, 'src', 'one.ts'), 'utf8'), '1');
    });

    it('edit_file replaces a unique match, refuses ambiguity, and shows near matches when nothing matches', async () => {
        answers.push('allow-chat');
        const edited = await call('edit_file', { path: 'src/util/math.ts', old_text: '    return a + b;', new_text: '    return b + a;' });
        assert.match(edited.content, /^Edited src\/util\/math.ts \(1 replacement\)\.\n/);
        assert.match(edited.content, /- {4}return a \+ b;\n\+ {4}return b \+ a;/);
        assert.match(readFileSync(join(root, 'src', 'util', 'math.ts'), 'utf8'), /return b \+ a;/);
        writeFileSync(join(root, 'twice.txt'), 'x = 1\ny\nx = 1\n');
        assert.match((await call('edit_file', { path: 'twice.txt', old_text: 'x = 1', new_text: 'x = 2' })).content, /occurs 2 times .* \(lines 1, 3\)/);
        assert.equal((await call('edit_file', { path: 'twice.txt', old_text: 'x = 1', new_text: 'x = 2', replace_all: true })).isError, undefined);
        const missed = await call('edit_file', { path: 'src/main.ts', old_text: 'return  add(1,2);', new_text: 'x' });
        assert.equal(missed.isError, true);
        assert.match(missed.content, /old_text was not found in "src\/main.ts"\. Similar lines: line 5: " {4}return add\(1, 2\);"\./);
    });

    it('writes through the IDE writer when there is one, and reports the edit record the chat shows', async () => {
        const writes: Array<{ path: string; content: string; created: boolean }> = [];
        const ide = new ToolKitExecutor(registry, 'chat-2', {
            files: new WorkspaceFiles([root]),
            permissions: { ask: async () => 'allow-once' },
            writer: { write: async (path, content, { created }) => { writes.push({ path, content, created }); } }
        });
        const run = (name: string, args: Record<string, unknown>) => ide.execute({ callId: 'c', name, arguments: args } as ToolCall, { requestId: 'r' });
        const edited = await run('edit_file', { path: 'src/util/math.ts', old_text: 'a + b', new_text: 'b + a' });
        assert.deepEqual(writes, [{ path: join(root, 'src', 'util', 'math.ts'), content: 'export function add(a: number, b: number) {\n    return b + a;\n}\n// todo later\n', created: false }]);
        assert.match(readFileSync(join(root, 'src', 'util', 'math.ts'), 'utf8'), /a \+ b/, 'the writer, not the tool, touches the file');
        assert.equal(edited.fileEdit?.path, 'src/util/math.ts');
        assert.equal(edited.fileEdit?.absolutePath, join(root, 'src', 'util', 'math.ts'));
        assert.equal(edited.fileEdit?.created, false);
        assert.match(edited.fileEdit?.diff ?? '', /^--- a\/src\/util\/math.ts\n\+\+\+ b\/src\/util\/math.ts\n@@ -1,4 \+1,4 @@\n/);
        const created = await run('create_file', { path: 'src/new.ts', content: 'x\n' });
        assert.deepEqual(writes[1], { path: join(root, 'src', 'new.ts'), content: 'x\n', created: true });
        assert.equal(created.fileEdit?.created, true);
        assert.equal((await run('read_file', { path: 'README.md' })).fileEdit, undefined);
    });

    it('edits the open editor\'s unsaved text, not the disk, so the user\'s changes survive the edit', async () => {
        const writes: string[] = [];
        const unsaved = 'export function add(a: number, b: number) {\n    return a + b; // typed, not saved\n}\n';
        const ide = new ToolKitExecutor(registry, 'chat-3', {
            files: new WorkspaceFiles([root]),
            permissions: { ask: async () => 'allow-once' },
            documents: { readOpen: async path => path === join(root, 'src', 'util', 'math.ts') ? unsaved : undefined },
            writer: { write: async (_path, content) => { writes.push(content); } }
        });
        const edited = await ide.execute({ callId: 'c', name: 'edit_file', arguments: { path: 'src/util/math.ts', old_text: 'a + b', new_text: 'b + a' } } as ToolCall, { requestId: 'r' });
        assert.ok(!edited.isError, edited.content);
        assert.deepEqual(writes, ['export function add(a: number, b: number) {\n    return b + a; // typed, not saved\n}\n']);
        assert.match(edited.fileEdit?.diff ?? '', /- {4}return a \+ b; \/\/ typed, not saved\n\+ {4}return b \+ a; \/\/ typed, not saved/);
    });

    it('a cancelled request stops waiting for an unanswered permission prompt and writes nothing', async () => {
        const writes: string[] = [];
        const never = new ToolKitExecutor(registry, 'chat-4', {
            files: new WorkspaceFiles([root]),
            permissions: { ask: () => new Promise(() => undefined) },
            writer: { write: async path => { writes.push(path); } }
        });
        const controller = new AbortController();
        const running = never.execute({ callId: 'c', name: 'create_file', arguments: { path: 'src/late.ts', content: 'x' } } as ToolCall, { requestId: 'r', signal: controller.signal });
        await new Promise(resolve => setTimeout(resolve, 10));
        controller.abort();
        await assert.rejects(running, (error: unknown) => error instanceof CancelledError);
        assert.deepEqual(writes, []);
    });

    it('create_file refuses to overwrite', async () => {
        answers.push('allow-chat');
        assert.match((await call('create_file', { path: 'README.md', content: 'x' })).content, /already exists. Use edit_file/);
    });

    it('turns wrong arguments, unknown tools and disabled tools into errors the model can read', async () => {
        assert.match((await call('read_file', { file: 'x' })).content, /Invalid arguments for read_file: path: .*expected string.*; \(arguments\): Unrecognized key: "file"/);
        assert.match((await call('read_file', { path: 'a', start_line: 0 })).content, /start_line: Too small/);
        assert.match((await call('rm_rf', {})).content, /There is no tool named "rm_rf"\. Available: read_file/);
        const limited = new ToolKitExecutor(registry, 'c2', { files: new WorkspaceFiles([root]), permissions: { ask: async () => 'allow-once' }, disabled: new Set(['search_project']) });
        assert.ok(!limited.definitions().some(d => d.name === 'search_project'));
        assert.match((await limited.execute({ callId: 'c', name: 'search_project', arguments: { query: 'x' } }, { requestId: 'r' })).content, /turned off by the user/);
    });

    it('todo keeps a list per chat', async () => {
        await call('todo', { action: 'add', text: 'write tests' });
        await call('todo', { action: 'add', text: 'ship' });
        assert.equal((await call('todo', { action: 'complete', id: 1 })).content, '[x] 1. write tests\n[ ] 2. ship');
        const other = new ToolKitExecutor(registry, 'chat-2', { files: new WorkspaceFiles([root]), permissions: { ask: async () => 'deny' } });
        assert.equal((await other.execute({ callId: 'c', name: 'todo', arguments: { action: 'list' } }, { requestId: 'r' })).content, 'The todo list is empty.');
    });
});
