import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGitIgnoredFolder } from '../config/git-ignored-folder';
import { DotEnvSecretsStore, EnvironmentSecretsStore, FileSecretsStore, RecordingSecretsStore, SecretsStore } from '../config/secrets-store';
import { LogCategory, LogLevel } from '../ports/logger';
import { RedactingLogger } from '../wire/loggers';
import { QodeAssistError } from '../wire/error-info';
import { streamHttpBody } from '../wire/http-transport';
import { KEY_SHAPE_CASES } from '../wire/redaction.spec';
import { CHAT_FILE_VERSION, ChatStore, StoredChat } from './chat-store';

/** A key with no key-like shape: only redaction by value can catch it. */
function shapelessKey(): string {
    return `Zq${randomBytes(16).toString('hex')}`;
}

/** A chat whose every place a key could leak through holds `leak`. */
function leakyChat(id: string, leak: string): StoredChat {
    return {
        version: CHAT_FILE_VERSION, id, title: `check ${leak}`, createdAt: '2026-11-01T10:00:00.000Z', updatedAt: '2026-11-01T10:05:00.000Z',
        history: [
            { role: 'user', blocks: [{ type: 'text', text: `my key is ${leak}` }] },
            {
                role: 'assistant', blocks: [
                    { type: 'thinking', text: `the key ${leak} works`, signature: 'c2ln' },
                    { type: 'tool_use', id: 'call-1', name: 'run_command', input: { command: `curl -H "x-key: ${leak}" https://h.example`, env: [{ value: leak }] } },
                    { type: 'tool_use', id: 'call-2', name: 'read_file', input: { path: '.env' } }
                ]
            },
            {
                role: 'user', blocks: [
                    { type: 'tool_result', toolUseId: 'call-1', name: 'run_command', content: `Error: upstream said invalid key ${leak}`, isError: true },
                    { type: 'tool_result', toolUseId: 'call-2', name: 'read_file', content: `PROXY_API_KEY=${leak}\n`, isError: false }
                ]
            }
        ],
        edits: { 'call-1': { path: '.env', absolutePath: '/w/.env', diff: `@@ -1 +1 @@\n-OLD=1\n+PROXY_API_KEY=${leak}\n`, created: false, state: 'applied' } }
    };
}

/** A provider that echoes the key it was sent in its error body, as some do. */
async function echoingProvider(): Promise<{ server: Server; url: string }> {
    const server = createServer((request, response) => {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `Incorrect value supplied: ${request.headers['x-provider-key']}` } }));
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat` };
}

describe('attack: a resolved key never reaches a log, an error or a saved chat', () => {
    let dir: string;
    beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'qodeassist-secrets-attack-')); });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const sources: Array<{ name: string; store: (key: string) => SecretsStore }> = [
        { name: 'the environment', store: key => new EnvironmentSecretsStore({ PROXY_API_KEY: key }) },
        {
            name: 'the 0600 secrets file', store: key => {
                const path = join(dir, 'secrets.json');
                writeFileSync(path, JSON.stringify({ proxy: key }), { mode: 0o600 });
                chmodSync(path, 0o600);
                return new FileSecretsStore(path);
            }
        },
        {
            name: 'the bench\'s .env', store: key => {
                const path = join(dir, '.env');
                writeFileSync(path, `PROXY_API_KEY=${key}\n`);
                return new DotEnvSecretsStore(path);
            }
        }
    ];

    for (const source of sources) {
        describe(`a key resolved from ${source.name} through the recording store`, () => {
            let key: string;
            beforeEach(async () => {
                key = shapelessKey();
                assert.equal(await new RecordingSecretsStore(source.store(key)).get('proxy'), key);
            });

            it('is absent from a log line that holds it bare', () => {
                const lines: string[] = [];
                const logger = new RedactingLogger((_level: LogLevel, _category: LogCategory, message: string) => lines.push(message), 'debug');
                logger.log('debug', 'qodeassist.wire', `POST https://h.example sent ${key} in a header`);
                assert.equal(lines.length, 1);
                assert.ok(!lines[0].includes(key), lines[0]);
                assert.equal(lines[0], 'POST https://h.example sent [REDACTED] in a header');
            });

            it('is absent from the bytes of a saved chat: tool results, tool arguments, errors, diffs and title', async () => {
                const store = new ChatStore(join(dir, '.qodeassist', 'chats'));
                await store.save(leakyChat('leaky', key));
                const bytes = readFileSync(join(dir, '.qodeassist', 'chats', 'leaky.json'), 'utf8');
                assert.ok(!bytes.includes(key), 'the key is in the saved chat file');
                const reloaded = await store.load('leaky');
                assert.deepEqual(reloaded.history[2].blocks[1], { type: 'tool_result', toolUseId: 'call-2', name: 'read_file', content: 'PROXY_API_KEY=[REDACTED]\n', isError: false });
            });

            it('is absent from the error the wire layer builds when a provider echoes it, with no per-request list', async () => {
                const { server, url } = await echoingProvider();
                try {
                    const stream = streamHttpBody({ url, headers: { 'x-provider-key': key }, body: {}, retry: { maxAttempts: 1 } });
                    const error = await stream.next().then(() => undefined, (failure: unknown) => failure);
                    assert.ok(error instanceof QodeAssistError, `expected a QodeAssistError, got ${String(error)}`);
                    const shown = `${error.message} ${JSON.stringify(error.info)}`;
                    assert.match(shown, /Incorrect value supplied: \[REDACTED\]/);
                    assert.ok(!shown.includes(key), shown);
                } finally {
                    server.close();
                }
            });
        });
    }

    it('control: a key that was not resolved through a recording store stays in a log line without a key shape', () => {
        const unrecorded = shapelessKey();
        const lines: string[] = [];
        new RedactingLogger((_level, _category, message) => lines.push(message)).log('info', 'qodeassist.wire', `value ${unrecorded}`);
        assert.deepEqual(lines, [`value ${unrecorded}`]);
    });

    for (const shape of KEY_SHAPE_CASES) {
        it(`a ${shape.name} in a tool result and its arguments is absent from the saved chat file`, async () => {
            const store = new ChatStore(join(dir, 'chats'));
            const chat: StoredChat = {
                version: CHAT_FILE_VERSION, id: 'shape', title: 'shapes', createdAt: '2026-11-01T10:00:00.000Z', updatedAt: '2026-11-01T10:00:00.000Z',
                history: [
                    { role: 'assistant', blocks: [{ type: 'tool_use', id: 'call-1', name: 'fetch_url', input: { url: shape.input } }] },
                    { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'call-1', name: 'fetch_url', content: shape.input, isError: true }] }
                ],
                edits: {}
            };
            await store.save(chat);
            const bytes = readFileSync(join(dir, 'chats', 'shape.json'), 'utf8');
            assert.ok(!bytes.includes(shape.secret), `${shape.secret} is in the saved chat file`);
        });
    }

    it('gives the chats folder a .gitignore of * on the first save', async () => {
        await new ChatStore(join(dir, '.qodeassist', 'chats')).save(leakyChat('first', 'nothing-secret'));
        assert.equal(readFileSync(join(dir, '.qodeassist', 'chats', '.gitignore'), 'utf8'), '*\n');
    });

    it('gives a new exports folder a .gitignore of *, and an existing .gitignore keeps its lines but ends by ignoring everything', async () => {
        const exports = join(dir, '.qodeassist', 'exports');
        await createGitIgnoredFolder(exports);
        assert.equal(readFileSync(join(exports, '.gitignore'), 'utf8'), '*\n');

        const kept = join(dir, 'kept-chats');
        mkdirSync(kept);
        writeFileSync(join(kept, '.gitignore'), '# the user shares these\n');
        await new ChatStore(kept).save(leakyChat('shared', 'nothing-secret'));
        // A repository can ship the folder with a .gitignore of its own: chats are committed only on purpose (git add -f), never by accident.
        assert.equal(readFileSync(join(kept, '.gitignore'), 'utf8'), '# the user shares these\n# QodeAssist: saved chats are never committed\n*\n');
        assert.ok(existsSync(join(kept, 'shared.json')));
    });
});
