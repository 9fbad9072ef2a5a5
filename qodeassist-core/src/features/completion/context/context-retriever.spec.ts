import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { WorkspaceFiles } from '../../../tools/workspace-files';
import { CancelledError } from '../../../wire/error-info';
import { cursorWindow } from '../completion-context';
import { CompletionContextRetriever, ContextRequest, DEFAULT_RETRIEVER } from './context-retriever';
import { DEFAULT_DEFINITIONS } from './definitions';

/** No deadlines: these tests are about what is found, not how soon. */
const UNHURRIED = { ...DEFAULT_RETRIEVER, definitions: { ...DEFAULT_DEFINITIONS, deadlineMs: Infinity }, recentFilesDeadlineMs: Infinity };
import { workspaceAccess } from './source-files';

describe('CompletionContextRetriever', () => {
    let root: string;
    const write = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
    };
    const requestAt = (path: string, marked: string, extra: Partial<ContextRequest> = {}): ContextRequest => {
        const offset = marked.indexOf('█');
        const text = marked.replace('█', '');
        return {
            file: join(root, path), language: 'typescript', text, offset, around: cursorWindow(text, offset), budget: 1024,
            access: workspaceAccess(new WorkspaceFiles([root])), ...extra
        };
    };

    beforeEach(() => {
        root = realpathSync(mkdtempSync(join(tmpdir(), 'qa-retriever-')));
        write('src/geometry.ts', 'export interface Point {\n    x: number;\n    y: number;\n}\nexport function distance(a: Point, b: Point): number {\n    return 0;\n}\n');
        write('src/shapes.ts', 'import { Point, distance } from "./geometry";\n\nexport function perimeter(points: Point[]): number {\n    let total = 0;\n    for (let i = 1; i < points.length; i++) {\n        total += distance(points[i - 1], points[i]);\n    }\n    return total;\n}\n');
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('brings definitions, recent edits and similar code, each listed with its tokens, within the budget', async () => {
        const retriever = new CompletionContextRetriever(text => Math.ceil(text.length / 4), undefined, UNHURRIED);
        const request = requestAt('src/area.ts', 'import { Point, distance } from "./geometry";\n\nexport function longest(points: Point[]): number {\n    let total = 0;\n    for (let i = 1; i < points.length; i++) {\n        █\n', {
            recentEdits: [{ path: join(root, 'src/notes.ts'), startLine: 4, text: 'export const UNIT = "cm";' }],
            recentFiles: [join(root, 'src/shapes.ts')]
        });
        write('src/notes.ts', '');
        const retrieval = await retriever.retrieve(request);
        assert.deepEqual(retrieval.records.map(record => [record.source, record.path, record.symbol]), [
            ['definition', 'src/geometry.ts', 'Point'],
            ['definition', 'src/geometry.ts', 'distance'],
            ['recent-edit', 'src/notes.ts', undefined],
            ['similar', 'src/shapes.ts', undefined]
        ]);
        assert.ok(retrieval.records.every(record => record.tokens > 0));
        assert.deepEqual(retrieval.repoFiles.map(file => [file.path, file.source]), [['src/shapes.ts', 'similar'], ['src/notes.ts', 'recent-edit'], ['src/geometry.ts', 'definition']]);
        assert.equal(retrieval.repoFiles[2].content, 'export interface Point {\n    x: number;\n    y: number;\n}\n\nexport function distance(a: Point, b: Point): number {\n');
        assert.ok(retrieval.elapsedMs >= 0);
    });

    it('reads nothing without a workspace, and gives nothing at a budget of 0', async () => {
        const retriever = new CompletionContextRetriever(text => text.length, undefined, UNHURRIED);
        const request = requestAt('src/area.ts', 'import { Point } from "./geometry";\n█', { recentFiles: [join(root, 'src/shapes.ts')] });
        assert.deepEqual((await retriever.retrieve({ ...request, access: undefined })).records, []);
        assert.deepEqual((await retriever.retrieve({ ...request, budget: 0 })).records, []);
        assert.equal(retriever.cache.size, 0, 'no file was read');
    });

    it('a cancelled request ends as cancelled', async () => {
        const controller = new AbortController();
        controller.abort();
        const retriever = new CompletionContextRetriever(text => text.length, undefined, UNHURRIED);
        await assert.rejects(retriever.retrieve(requestAt('src/area.ts', 'import { Point } from "./geometry";\n█'), controller.signal), CancelledError);
    });
});
