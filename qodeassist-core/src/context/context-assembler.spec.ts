import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QodeAssistError } from '../wire/error-info';
import { ContentLoader } from './content-loader';
import { AssembleInput, ContextAssembler } from './context-assembler';
import { formatManifest } from './context-manifest';
import { HistoryMessage } from './conversation-history';
import { ENV_PROJECT_LAYER, formatFile, formatProject } from './env-block';
import { TokenEstimator } from './token-estimator';

const user = (...texts: string[]): HistoryMessage => ({ role: 'user', blocks: texts.map(text => ({ type: 'text', text })) });
const assistant = (text: string): HistoryMessage => ({ role: 'assistant', blocks: [{ type: 'text', text }] });
const toolRound = (id: string, result: string): HistoryMessage[] => [
    { role: 'assistant', blocks: [{ type: 'tool_use', id, name: 'read_file', input: { p: id } }] },
    { role: 'user', blocks: [{ type: 'tool_result', toolUseId: id, name: 'read_file', content: result, isError: false }] }
];

describe('ContextAssembler', () => {
    const dir = mkdtempSync(join(tmpdir(), 'qodeassist-assembler-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    // One char per token makes every figure below exact.
    const assembler = () => new ContextAssembler(new TokenEstimator(1), new ContentLoader());
    const input = (overrides: Partial<AssembleInput>): AssembleInput => ({
        layers: [], history: [], pinned: [], tools: [], budget: { contextWindow: 100_000, maxOutputTokens: 1_000 }, estimatorKey: 'k', ...overrides
    });

    it('orders system layers stable-first whatever order they were set in', async () => {
        const { ctx, manifest } = await assembler().assemble(input({
            layers: [{ name: 'refactor', text: 'R' }, { name: 'skills.catalog', text: 'S' }, { name: 'agent.system', text: 'A' }, { name: 'env.project', text: 'E' }],
            history: [user('hi')]
        }));
        assert.equal(ctx.system_prompt, 'A\n\nE\n\nS\n\nR');
        assert.deepEqual(manifest.layers.map(layer => layer.name), ['agent.system', 'env.project', 'skills.catalog', 'refactor']);
    });

    it('places env.project after the agent\'s layers and before the skills catalog and pipeline layers, and lists it in the manifest with its estimate', async () => {
        const env = formatProject({ workspaceName: 'shop', workspaceRoot: '/home/ann/shop', os: 'Linux', branch: 'main' });
        const { ctx, manifest } = await assembler().assemble(input({
            layers: [{ name: 'compression', text: 'C' }, { name: 'skills.catalog', text: 'S' }, { name: ENV_PROJECT_LAYER, text: env }, { name: 'agent.role', text: 'R' }, { name: 'agent.system', text: 'A' }],
            history: [user('hi')]
        }));
        assert.equal(ctx.system_prompt, `A\n\nR\n\n${env}\n\nS\n\nC`);
        assert.deepEqual(manifest.layers, [
            { name: 'agent.system', tokens: 1 }, { name: 'agent.role', tokens: 1 }, { name: 'env.project', tokens: env.length },
            { name: 'skills.catalog', tokens: 1 }, { name: 'compression', tokens: 1 }
        ]);
        assert.match(formatManifest(manifest), new RegExp(`^layers: \\{ agent\\.system: ~1, agent\\.role: ~1, env\\.project: ~${env.length}, skills\\.catalog: ~1, compression: ~1 \\}$`, 'm'));
    });

    it('prepends pinned content to the turn\'s typed user message, not the tool-result carrier', async () => {
        const { ctx, manifest } = await assembler().assemble(input({
            history: [user('old'), assistant('a'), user('the task'), ...toolRound('t1', 'r1')],
            pinned: [{ id: 'p', label: 'Linked file src/a.ts', text: 'code' }]
        }));
        assert.deepEqual(ctx.history[2].content, [
            { type: 'text', text: 'Linked file src/a.ts (content as of this turn):\ncode' }, { type: 'text', text: 'the task' }
        ]);
        assert.deepEqual(ctx.history[4].content.map(block => block.type), ['tool_result']);
        assert.deepEqual(manifest.pinned, [{ id: 'p', label: 'Linked file src/a.ts', tokens: 24 }]);
    });

    it('falls back to after the leading tool results, then to a synthetic user message', async () => {
        const onlyResults = await assembler().assemble(input({ history: toolRound('t1', 'r1'), pinned: [{ id: 'p', label: 'L', text: 'x' }] }));
        assert.deepEqual(onlyResults.ctx.history[1].content.map(block => block.type), ['tool_result', 'text']);
        const empty = await assembler().assemble(input({ history: [], pinned: [{ id: 'p', label: 'L', text: 'x' }] }));
        assert.deepEqual(empty.ctx.history, [{ role: 'user', content: [{ type: 'text', text: 'L (content as of this turn):\nx' }] }]);
    });

    it('drops unsigned thinking and orphaned tool pairs, recording each', async () => {
        const { ctx, manifest } = await assembler().assemble(input({
            history: [
                user('q'),
                { role: 'assistant', blocks: [{ type: 'thinking', text: 'unsigned' }, { type: 'thinking', text: 'signed', signature: 's' }, { type: 'tool_use', id: 'lost', name: 'x', input: {} }, { type: 'text', text: 'a' }] },
                { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'ghost', name: 'y', content: 'r', isError: false }, { type: 'text', text: 'next' }] }
            ]
        }));
        assert.deepEqual(ctx.history[1].content, [{ type: 'thinking', thinking: 'signed', signature: 's' }, { type: 'text', text: 'a' }]);
        assert.deepEqual(ctx.history[2].content, [{ type: 'text', text: 'next' }]);
        assert.deepEqual(manifest.filters, [
            { kind: 'unsigned_thinking', detail: '8 chars' }, { kind: 'orphaned_tool_use', detail: 'x lost' }, { kind: 'orphaned_tool_result', detail: 'y ghost' }
        ]);
    });

    it('materializes stored content, caches it by mtime and size, and leaves a placeholder for a failed load', async () => {
        const path = join(dir, 'notes.txt');
        writeFileSync(path, 'v1');
        const loader = new ContentLoader();
        const withLoader = new ContextAssembler(new TokenEstimator(1), loader);
        const history: HistoryMessage[] = [{ role: 'user', blocks: [
            { type: 'attachment', ref: { path, name: 'notes.txt', mediaType: 'text/plain' } },
            { type: 'image', ref: { path: join(dir, 'gone.png'), name: 'gone.png', mediaType: 'image/png' } }
        ] }];
        const first = await withLoader.assemble(input({ history }));
        assert.deepEqual(first.ctx.history[0].content, [
            { type: 'text', text: 'Attached file notes.txt:\n```\nv1\n```' }, { type: 'text', text: '[attachment unavailable: gone.png]' }
        ]);
        assert.deepEqual(first.manifest.filters, [{ kind: 'failed_load', detail: 'gone.png (ENOENT)' }]);
        await withLoader.assemble(input({ history }));
        assert.equal(loader.size, 1);
        writeFileSync(path, 'v2 longer');
        utimesSync(path, new Date(), new Date(Date.now() + 5_000));
        const third = await withLoader.assemble(input({ history }));
        assert.match((third.ctx.history[0].content[0] as { text: string }).text, /v2 longer/);
        assert.equal(loader.size, 2);
    });

    it('elides old tool results first, keeping the last rounds, with an exact manifest', async () => {
        const history = [user('task'), ...toolRound('t1', 'x'.repeat(500)), ...toolRound('t2', 'y'.repeat(500)), ...toolRound('t3', 'z'.repeat(500)), ...toolRound('t4', 'w'.repeat(500))];
        const { ctx, manifest } = await assembler().assemble(input({ history, budget: { contextWindow: 2_000, maxOutputTokens: 400, keepRecentToolRounds: 2 } }));
        // 4 + 4 × (19 tool_use + 500) = 2080 > 1600: eliding t1 leaves 1626, still over; eliding t2 too fits.
        assert.deepEqual(manifest.elisions, [
            { kind: 'tool_result', detail: 'read_file t1', tokens: 500, reason: 'low-signal' }, { kind: 'tool_result', detail: 'read_file t2', tokens: 500, reason: 'low-signal' }
        ]);
        assert.equal((ctx.history[2].content[0] as { content: string }).content, '[tool result elided (low-signal) — 500 tokens]');
        assert.equal((ctx.history[6].content[0] as { content: string }).content, 'z'.repeat(500));
        assert.equal(manifest.limit, 1_600);
        assert.equal(manifest.estimate, 4 + 4 * 19 + 2 * 500 + 2 * 46);
        assert.deepEqual(manifest.history, { messages: 9, tokens: manifest.estimate, toolRounds: 4 });
        assert.equal(manifest.warning, undefined, '72% full: no warning yet');
    });

    it('protects the latest build and the last writes, compacts superseded builds always, drops whole old rounds last, and needs no repair', async () => {
        const call = (id: string, name: string, input: Record<string, unknown>, content: string, isError = false): HistoryMessage[] => [
            { role: 'assistant', blocks: [{ type: 'tool_use', id, name, input }] },
            { role: 'user', blocks: [{ type: 'tool_result', toolUseId: id, name, content, isError }] }
        ];
        const history: HistoryMessage[] = [
            user('fix the build'),
            ...call('r1', 'read_file', { path: 'a.ts' }, 'A'.repeat(400)),
            ...call('b1', 'build_project', {}, `The build failed.\na.ts:1:1: error: first ${'x'.repeat(300)}`, true),
            ...call('e1', 'edit_file', { path: 'a.ts', old_text: 'A', new_text: 'B' }, `Edited a.ts ${'d'.repeat(300)}`),
            ...call('r2', 'read_file', { path: 'b.ts' }, 'B'.repeat(400)),
            ...call('s1', 'search_project', { query: 'q' }, 'S'.repeat(400)),
            ...call('b2', 'build_project', {}, `The build failed.\nb.ts:2:2: error: second ${'y'.repeat(300)}`, true),
            ...call('r3', 'read_file', { path: 'c.ts' }, 'C'.repeat(100)),
            ...call('r4', 'read_file', { path: 'd.ts' }, 'D'.repeat(100))
        ];
        const { ctx, manifest } = await assembler().assemble(input({ history, budget: { contextWindow: 2_600, maxOutputTokens: 400, keepRecentToolRounds: 2 } }));
        const results = new Map(ctx.history.flatMap(message => message.content.flatMap(block => block.type === 'tool_result' ? [[block.tool_use_id, block.content] as const] : [])));
        assert.match(results.get('b2') ?? '', /error: second/, 'the latest build failure is protected');
        assert.match(results.get('e1') ?? '', /^Edited a.ts/, 'the last write is protected');
        assert.equal(results.get('b1'), '[superseded by a later build: see the working set]');
        assert.deepEqual(manifest.elisions.filter(elision => elision.kind === 'tool_round'), [], 'no whole round had to go at this size');
        assert.equal(results.get('r4'), 'D'.repeat(100), 'the last rounds stay');
        assert.deepEqual(manifest.elisions.find(elision => elision.detail === 'build_project b1')?.reason, 'superseded');
        const order = manifest.elisions.filter(elision => elision.kind === 'tool_result' && elision.reason !== 'superseded').map(elision => elision.reason);
        assert.deepEqual(order, [...order].sort((a, b) => (a === 'low-signal' ? 0 : 1) - (b === 'low-signal' ? 0 : 1)), 'reads and searches go before other results');
        assert.ok(manifest.estimate <= manifest.limit, `${manifest.estimate} ≤ ${manifest.limit}`);
        assert.deepEqual(manifest.repairs, {});
        assert.equal(manifest.sections[0]?.name, 'working set');
        const text = JSON.stringify(ctx.history);
        assert.match(text, /Latest build: FAILED\\nThe build failed.\\nb.ts:2:2: error: second/);
        assert.doesNotMatch(text, /error: first/, 'the superseded failure is gone from the working set too');

        const tight = await assembler().assemble(input({ history, budget: { contextWindow: 2_150, maxOutputTokens: 400, keepRecentToolRounds: 2 } }));
        assert.ok(tight.manifest.elisions.some(elision => elision.kind === 'tool_round'), 'whole old rounds go when eliding results is not enough');
        assert.deepEqual(tight.manifest.repairs, {}, 'rounds are dropped whole: the trace stays paired');
        assert.ok(tight.manifest.estimate <= tight.manifest.limit);
    });

    it('warns before the budget refuses', async () => {
        const { manifest } = await assembler().assemble(input({ history: [user('x'.repeat(900))], budget: { contextWindow: 1_100, maxOutputTokens: 100 } }));
        assert.equal(manifest.warning, 'The context is 90% full; older tool results and attachments will be elided, then the request refused. Summarize the chat soon.');
    });

    it('then elides old images, never the ones in the current turn', async () => {
        const png = join(dir, 'shot.png');
        writeFileSync(png, 'PNG');
        const ref = { path: png, name: 'shot.png', mediaType: 'image/png' };
        const history: HistoryMessage[] = [{ role: 'user', blocks: [{ type: 'image', ref }, { type: 'text', text: 'old' }] }, assistant('seen'), { role: 'user', blocks: [{ type: 'image', ref }, { type: 'text', text: 'now' }] }];
        const { ctx, manifest } = await assembler().assemble(input({ history, budget: { contextWindow: 1_500, maxOutputTokens: 100 } }));
        assert.deepEqual(manifest.elisions, [{ kind: 'image', detail: 'image/png', tokens: 800 }]);
        assert.deepEqual(ctx.history[0].content[0], { type: 'text', text: '[image elided to fit the context]' });
        assert.equal(ctx.history[2].content[0].type, 'image');
    });

    it('refuses with a Validation error that suggests summarizing when nothing more can go', async () => {
        await assert.rejects(assembler().assemble(input({ history: [user('x'.repeat(5_000))], budget: { contextWindow: 4_000, maxOutputTokens: 1_000 } })),
            (error: unknown) => error instanceof QodeAssistError && error.info.category === 'Validation' && /about 5000 tokens but this agent allows 3000.*Summarize/.test(error.message));
    });

    it('puts completion content in ctx.prefix/suffix and files_metadata', async () => {
        const { ctx } = await assembler().assemble(input({ completion: { prefix: 'a', suffix: 'b', language: 'ts', filePath: 'x.ts', files: [{ path: 'y.ts', content: 'c' }] } }));
        assert.deepEqual([ctx.prefix, ctx.suffix, ctx.language, ctx.file_path, ctx.files_metadata], ['a', 'b', 'ts', 'x.ts', [{ path: 'y.ts', content: 'c' }]]);
    });

    it('gives completion templates the active-file line of the environment block', async () => {
        const { ctx } = await assembler().assemble(input({ completion: { prefix: 'a', suffix: 'b', language: 'typescript', filePath: 'src/x.ts' } }));
        assert.equal(ctx.file_info, 'Active file: src/x.ts (typescript)');
        assert.equal(ctx.file_info, formatFile({ activeFile: 'src/x.ts', language: 'typescript' }));
    });
});
