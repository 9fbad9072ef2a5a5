import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IPermissionPrompt, PermissionAnswer, PermissionRequest } from '../ports/permission-prompt';
import { FixedPermissionPolicy } from '../tools/fixed-permission-policy';
import { ToolCall } from '../wire/assistant-turn';
import { createFileAtomically, replaceFileAtomically } from './workspace-file-write';
import { FILE_TOOLS, hasRipgrep } from './file-tools';
import { ToolContributorRegistry, ToolKitExecutor, ToolKitOptions } from './tool-executor';
import { ToolInputError, WorkspaceFiles } from './workspace-files';

/** Each case plays an attack through the file tools and asserts its harm did not happen, not only that an error came. */
describe('file tools under attack: links, ignored secrets, protected paths', () => {
    const SECRET = 'TOPSECRET-42';
    let base: string;
    let root: string;
    let outside: string;

    beforeEach(() => {
        base = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-attack-')));
        root = join(base, 'ws');
        outside = join(base, 'outside');
        mkdirSync(join(root, 'secrets'), { recursive: true });
        mkdirSync(join(root, 'docs'), { recursive: true });
        mkdirSync(join(root, '.vscode'), { recursive: true });
        mkdirSync(outside, { recursive: true });
        writeFileSync(join(root, '.qodeassistignore'), '.env\nsecrets/\n');
        writeFileSync(join(root, '.gitignore'), 'node_modules\n');
        writeFileSync(join(root, '.env'), `API_KEY=${SECRET}\n`);
        writeFileSync(join(root, 'secrets', 'key.txt'), `${SECRET} in a folder\n`);
        writeFileSync(join(root, 'docs', 'readme.md'), 'hello\n');
        // Decoys the walks must find, so an empty answer cannot pass for a safe one.
        writeFileSync(join(root, 'docs', 'public-key-and-alias.md'), 'a public SECRET-7\n');
        writeFileSync(join(root, 'inside.txt'), 'inside TODO\n');
        writeFileSync(join(root, '.vscode', 'settings.json'), '{}\n');
        writeFileSync(join(outside, 'victim.txt'), 'victim\n');
        symlinkSync('.env', join(root, 'alias.txt'));
        symlinkSync('alias.txt', join(root, 'alias2.txt'));
        symlinkSync('secrets', join(root, 'cfg'));
        symlinkSync('../outside', join(root, 'out'));
        symlinkSync('../outside/victim.txt', join(root, 'outfile.txt'));
        symlinkSync('missing.txt', join(root, 'dangle.txt'));
        symlinkSync('../outside/created-by-attack.txt', join(root, 'dangle-out.txt'));
        symlinkSync('inside.txt', join(root, 'notes.txt'));
        symlinkSync('.vscode/settings.json', join(root, 'innocent.json'));
    });
    afterEach(() => {
        delete process.env.QODEASSIST_SEARCH_ENGINE;
        rmSync(base, { recursive: true, force: true });
    });

    const toolkit = (permissions: IPermissionPrompt, more: Partial<ToolKitOptions> = {}) => {
        const registry = new ToolContributorRegistry();
        registry.register(() => FILE_TOOLS);
        const kit = new ToolKitExecutor(registry, 'chat-attack', { files: new WorkspaceFiles([root], { useGitignore: true }), permissions, ...more });
        return (name: string, args: Record<string, unknown>) => kit.execute({ callId: 'c', name, arguments: args } as ToolCall, { requestId: 'r' });
    };
    const allowAll: IPermissionPrompt = { ask: async () => 'allow-once' };

    describe('the secret of an ignored .env never reaches the model', () => {
        const reads: Array<[string, string, Record<string, unknown>]> = [
            ['read_file through a link', 'read_file', { path: 'alias.txt' }],
            ['read_file through a link to a link', 'read_file', { path: 'alias2.txt' }],
            ['read_file through a linked folder', 'read_file', { path: 'cfg/key.txt' }],
            ['read_file through a link given as an absolute path', 'read_file', { path: '<root>/alias.txt' }],
            ['read_file through a link given as a file URI', 'read_file', { path: 'file://<root>/alias2.txt' }],
            ['list_project_files of a linked ignored folder', 'list_project_files', { path: 'cfg' }]
        ];
        for (const [name, tool, args] of reads) {
            it(`${name} is refused and shows nothing of it`, async () => {
                const concrete = JSON.parse(JSON.stringify(args).replace(/<root>/g, root)) as Record<string, unknown>;
                const result = await toolkit(allowAll)(tool, concrete);
                assert.equal(result.isError, true, result.content);
                assert.match(result.content, /excluded by the workspace's ignore rules/);
                assert.ok(!result.content.includes(SECRET));
            });
        }

        const walks: Array<[string, string, Record<string, unknown>]> = [
            ['list_project_files of the workspace', 'list_project_files', {}],
            ['find_file for the key', 'find_file', { query: 'key' }],
            ['find_file for the links', 'find_file', { query: 'alias' }],
            // A pattern for the secret's lines that does not contain it: the "no match" answer repeats the query.
            ['search_project (js engine)', 'search_project', { query: 'SECRET-\\d+', regex: true }],
            ['search_project (ripgrep)', 'search_project', { query: 'SECRET-\\d+', regex: true }]
        ];
        for (const [name, tool, args] of walks) {
            it(`${name} neither shows the secret nor follows a link to it`, async () => {
                if (name.includes('js engine')) {
                    process.env.QODEASSIST_SEARCH_ENGINE = 'js';
                } else if (name.includes('ripgrep')) {
                    assert.equal(await hasRipgrep(), true, 'rg must be installed for this test');
                }
                const result = await toolkit(allowAll)(tool, args);
                assert.match(result.content, /^docs\/public-key-and-alias\.md/m);
                assert.ok(!result.content.includes(SECRET), result.content);
                assert.ok(!/^(alias|cfg\/|secrets\/|\.env)/m.test(result.content), result.content);
            });
        }
    });

    describe('writes through links stay inside and off ignored files', () => {
        const writes: Array<[string, string, Record<string, unknown>, () => void]> = [
            ['create_file in a linked folder outside', 'create_file', { path: 'out/new.txt', content: 'x' }, () => assert.ok(!existsSync(join(outside, 'new.txt')))],
            ['edit_file of a link to an outside file', 'edit_file', { path: 'outfile.txt', old_text: 'victim', new_text: 'pwned' },
                () => assert.equal(readFileSync(join(outside, 'victim.txt'), 'utf8'), 'victim\n')],
            ['create_file on a dangling link inside', 'create_file', { path: 'dangle.txt', content: 'x' }, () => assert.ok(!existsSync(join(root, 'missing.txt')))],
            ['create_file on a dangling link leading outside', 'create_file', { path: 'dangle-out.txt', content: 'x' },
                () => assert.ok(!existsSync(join(outside, 'created-by-attack.txt')))],
            ['edit_file of a link to the ignored .env', 'edit_file', { path: 'alias.txt', old_text: 'API_KEY', new_text: 'X' },
                () => assert.equal(readFileSync(join(root, '.env'), 'utf8'), `API_KEY=${SECRET}\n`)],
            ['create_file in a linked ignored folder', 'create_file', { path: 'cfg/new.txt', content: 'x' }, () => assert.ok(!existsSync(join(root, 'secrets', 'new.txt')))]
        ];
        for (const [name, tool, args, unharmed] of writes) {
            it(`${name} is refused and changes nothing`, async () => {
                const result = await toolkit(allowAll)(tool, args);
                assert.equal(result.isError, true, result.content);
                unharmed();
            });
        }

        it('a link swapped to an outside file while edit_file waits for the editor does not redirect the write', async () => {
            const run = toolkit(allowAll, {
                documents: {
                    readOpen: async path => {
                        if (path === join(root, 'notes.txt')) {
                            unlinkSync(path);
                            symlinkSync(join(outside, 'victim.txt'), path);
                            return 'inside TODO\n';
                        }
                        return undefined;
                    }
                }
            });
            const result = await run('edit_file', { path: 'notes.txt', old_text: 'TODO', new_text: 'DONE' });
            assert.equal(result.isError, true, result.content);
            assert.equal(readFileSync(join(outside, 'victim.txt'), 'utf8'), 'victim\n');
            assert.equal(readFileSync(join(root, 'inside.txt'), 'utf8'), 'inside TODO\n');
        });

        it('recheck refuses a path that became a link to elsewhere after it was resolved', () => {
            const files = new WorkspaceFiles([root]);
            const fresh = files.resolve('fresh.txt');
            symlinkSync(join(outside, 'victim.txt'), join(root, 'fresh.txt'));
            assert.throws(() => files.recheck(fresh), ToolInputError);
            const swapped = files.resolve('notes.txt');
            unlinkSync(join(root, 'notes.txt'));
            symlinkSync('docs/readme.md', join(root, 'notes.txt'));
            assert.throws(() => files.recheck(swapped), /changed while the tool ran/);
        });

        it('the disk write replaces a link put at the path instead of writing through it', async () => {
            const path = join(root, 'late.txt');
            symlinkSync(join(outside, 'victim.txt'), path);
            await replaceFileAtomically(path, 'new content');
            assert.equal(readFileSync(join(outside, 'victim.txt'), 'utf8'), 'victim\n');
            assert.equal(readFileSync(path, 'utf8'), 'new content');
            symlinkSync(join(outside, 'planted.txt'), join(root, 'planted.txt'));
            await assert.rejects(createFileAtomically(join(root, 'planted.txt'), 'x'), ToolInputError);
            assert.ok(!existsSync(join(outside, 'planted.txt')));
            assert.equal(readlinkSync(join(root, 'planted.txt')), join(outside, 'planted.txt'));
        });
    });

    describe('writes to protected paths always ask', () => {
        /** [path, tool, arguments]: a create for new files, an edit for existing ones. */
        const targets: Array<[string, string, Record<string, unknown>]> = [
            ['.qodeassist/agents.toml', 'create_file', { path: '.qodeassist/agents.toml', content: 'pwned' }],
            ['.theia/settings.json', 'create_file', { path: '.theia/settings.json', content: 'pwned' }],
            ['.vscode/tasks.json', 'create_file', { path: '.vscode/tasks.json', content: 'pwned' }],
            ['.claude/settings.json', 'create_file', { path: '.claude/settings.json', content: 'pwned' }],
            ['.git/hooks/pre-commit', 'create_file', { path: '.git/hooks/pre-commit', content: 'pwned' }],
            ['.gitignore', 'edit_file', { path: '.gitignore', old_text: 'node_modules', new_text: 'pwned' }],
            ['.qodeassistignore', 'edit_file', { path: '.qodeassistignore', old_text: '.env', new_text: 'pwned' }],
            ['docs/.qodeassistignore', 'create_file', { path: 'docs/.qodeassistignore', content: 'pwned' }],
            ['.vscode/settings.json', 'edit_file', { path: 'innocent.json', old_text: '{}', new_text: 'pwned' }],
            // What a case-insensitive file system (macOS, Windows) opens as .vscode/tasks.json and .theia/settings.json.
            ['.VSCode/tasks.json', 'create_file', { path: '.VSCode/tasks.json', content: 'pwned' }],
            ['.Theia/settings.json', 'create_file', { path: '.Theia/settings.json', content: 'pwned' }]
        ];
        const untouched = (path: string) => !existsSync(join(root, path)) || !readFileSync(join(root, path), 'utf8').includes('pwned');

        it('after "allow for this chat", each protected write asks again, says why, and a denial leaves it unchanged', async () => {
            const asked: PermissionRequest[] = [];
            const answers: PermissionAnswer[] = ['allow-chat', 'allow-chat'];
            const run = toolkit({ ask: async request => { asked.push(request); return answers.shift() ?? 'deny'; } });
            assert.equal((await run('create_file', { path: 'docs/a.md', content: 'a' })).isError, undefined);
            assert.equal((await run('edit_file', { path: 'docs/a.md', old_text: 'a', new_text: 'b' })).isError, undefined);
            for (const [expected, tool, args] of targets) {
                const before = asked.length;
                const result = await run(tool, args);
                assert.equal(asked.length, before + 1, `${expected} was not asked`);
                assert.equal(asked.at(-1)?.protectedPath, expected);
                assert.equal(result.isError, true);
                assert.ok(untouched(expected), expected);
            }
            const ordinary = asked.length;
            assert.equal((await run('create_file', { path: 'docs/b.md', content: 'b' })).isError, undefined);
            assert.equal(asked.length, ordinary, 'ordinary writes stay allowed for the chat');
        });

        it('"allow for this chat" answered to a protected write allows that one write only', async () => {
            const asked: PermissionRequest[] = [];
            const run = toolkit({ ask: async request => { asked.push(request); return 'allow-chat'; } });
            await run('create_file', { path: '.vscode/one.json', content: '1' });
            await run('create_file', { path: '.vscode/two.json', content: '2' });
            await run('create_file', { path: 'docs/x.md', content: 'x' });
            await run('create_file', { path: 'docs/y.md', content: 'y' });
            assert.deepEqual(asked.map(request => request.arguments.path), ['.vscode/one.json', '.vscode/two.json', 'docs/x.md']);
        });

        it('the bench\'s --allow write denies every protected write and leaves the files as they were', async () => {
            const run = toolkit(new FixedPermissionPolicy(new Set(['read', 'write'])));
            for (const [expected, tool, args] of targets) {
                const result = await run(tool, args);
                assert.match(result.content, /denied/, expected);
                assert.ok(untouched(expected), expected);
            }
            assert.equal(readFileSync(join(root, '.qodeassistignore'), 'utf8'), '.env\nsecrets/\n');
            assert.equal((await run('create_file', { path: 'docs/ok.md', content: 'ok' })).isError, undefined);
        });

        describe('the decision is made on the path written, not on one resolved before the question', () => {
            /** A prompt that, while it is open, swaps the folder `work` for a link to `target`, then allows. */
            const swappingPrompt = (target: string, answer: PermissionAnswer, asked: PermissionRequest[]): IPermissionPrompt => ({
                ask: async request => {
                    asked.push(request);
                    rmSync(join(root, 'work'), { recursive: true, force: true });
                    symlinkSync(target, join(root, 'work'));
                    return answer;
                }
            });
            const cases: Array<[string, string, Record<string, unknown>, string]> = [
                ['create_file into .qodeassist', 'create_file', { path: 'work/agents.toml', content: 'pwned' }, '.qodeassist'],
                ['create_file into .vscode', 'create_file', { path: 'work/tasks.json', content: 'pwned' }, '.vscode'],
                ['edit_file of .vscode/settings.json', 'edit_file', { path: 'work/settings.json', old_text: '{}', new_text: 'pwned' }, '.vscode']
            ];
            for (const [name, tool, args, protectedFolder] of cases) {
                for (const answer of ['allow-once', 'allow-chat'] as PermissionAnswer[]) {
                    it(`${name}: a folder swapped for a link while an ordinary prompt is open (${answer}) writes nothing there`, async () => {
                        mkdirSync(join(root, '.qodeassist'), { recursive: true });
                        mkdirSync(join(root, 'work'));
                        writeFileSync(join(root, 'work', 'settings.json'), '{}\n');
                        const asked: PermissionRequest[] = [];
                        const result = await toolkit(swappingPrompt(protectedFolder, answer, asked))(tool, args);
                        assert.equal(asked.length, 1);
                        assert.equal(asked[0].protectedPath, undefined, 'the question was about an ordinary path');
                        assert.equal(result.isError, true);
                        assert.match(result.content, /Nothing was written/);
                        const file = join(root, protectedFolder, String(args.path).split('/')[1]);
                        assert.ok(!existsSync(file) || !readFileSync(file, 'utf8').includes('pwned'), `${file} was written`);
                    });
                }
            }

            it('after "allow for this chat", a path that is now a link into a protected folder is asked about again', async () => {
                mkdirSync(join(root, 'work'));
                const asked: PermissionRequest[] = [];
                const run = toolkit({ ask: async request => { asked.push(request); return 'allow-chat'; } });
                assert.equal((await run('create_file', { path: 'work/one.md', content: '1' })).isError, undefined);
                rmSync(join(root, 'work'), { recursive: true });
                symlinkSync('.vscode', join(root, 'work'));
                // The toolkit sees the link and asks; answered "allow-chat" it writes that once, as asked.
                const result = await run('create_file', { path: 'work/two.json', content: 'asked' });
                assert.equal(asked.length, 2);
                assert.equal(asked[1].protectedPath, '.vscode/two.json');
                assert.equal(result.isError, undefined, result.content);
                assert.equal(readFileSync(join(root, '.vscode', 'two.json'), 'utf8'), 'asked');
            });

            it('edit_file allowed for the chat, whose folder becomes a link to .vscode while the editor is read, writes nothing there', async () => {
                mkdirSync(join(root, 'work'));
                writeFileSync(join(root, 'work', 'settings.json'), '{}\n');
                const asked: PermissionRequest[] = [];
                let reads = 0;
                const run = toolkit({ ask: async request => { asked.push(request); return 'allow-chat'; } }, {
                    documents: {
                        readOpen: async () => {
                            if (++reads === 2) {
                                rmSync(join(root, 'work'), { recursive: true });
                                symlinkSync('.vscode', join(root, 'work'));
                            }
                            return undefined;
                        }
                    }
                });
                assert.equal((await run('edit_file', { path: 'docs/readme.md', old_text: 'hello', new_text: 'hi' })).isError, undefined);
                const result = await run('edit_file', { path: 'work/settings.json', old_text: '{}', new_text: 'pwned' });
                assert.equal(asked.length, 1, 'edit_file was allowed for the chat: no second question');
                assert.equal(result.isError, true);
                assert.match(result.content, /Nothing was written/);
                assert.equal(readFileSync(join(root, '.vscode', 'settings.json'), 'utf8'), '{}\n');
            });

            it('a write redirected to another ordinary place while the prompt is open is refused: the user answered about another file', async () => {
                mkdirSync(join(root, 'work'));
                mkdirSync(join(root, 'elsewhere'));
                const asked: PermissionRequest[] = [];
                const result = await toolkit(swappingPrompt('elsewhere', 'allow-once', asked))('create_file', { path: 'work/x.md', content: 'moved' });
                assert.equal(result.isError, true);
                assert.match(result.content, /changed after the user was asked/);
                assert.ok(!existsSync(join(root, 'elsewhere', 'x.md')));
            });
        });

        it('the bench\'s --allow protected-write allows them (.git stays refused by the ignore rules)', async () => {
            const run = toolkit(new FixedPermissionPolicy(new Set(['read', 'protected-write'])));
            for (const [expected, tool, args] of targets) {
                const result = await run(tool, args);
                if (expected.startsWith('.git/')) {
                    assert.match(result.content, /excluded by the workspace's ignore rules/);
                    assert.ok(!existsSync(join(root, expected)));
                } else {
                    assert.equal(result.isError, undefined, `${expected}: ${result.content}`);
                    assert.match(readFileSync(join(root, expected), 'utf8'), /pwned/, expected);
                }
            }
        });
    });
});
