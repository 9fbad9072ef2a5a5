import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { WorkspaceFiles } from '../../../tools/workspace-files';
import { DEFAULT_DEFINITIONS, findDefinitions, usageNearCursor } from './definitions';
import { importsOf } from './import-statements';
import { SourceFileCache, workspaceAccess } from './source-files';

const CURSOR = '█';

describe('definitions of the symbols around the cursor', () => {
    let root: string;
    const write = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
    };
    /** No deadline: the tests are about what is found, not how soon (one test is about the deadline). */
    const UNHURRIED = { ...DEFAULT_DEFINITIONS, deadlineMs: Infinity };
    const find = async (path: string, marked: string, ideLocations?: Array<{ path: string; line: number; symbol?: string }>, options = UNHURRIED, cache = new SourceFileCache()) => {
        const offset = marked.indexOf(CURSOR);
        const file = join(root, path);
        return findDefinitions({
            file, text: marked.replace(CURSOR, ''), offset, family: path.endsWith('.py') ? 'py' : 'ts',
            access: workspaceAccess(new WorkspaceFiles([root])), ideLocations
        }, cache, options);
    };

    beforeEach(() => {
        root = realpathSync(mkdtempSync(join(tmpdir(), 'qa-defs-')));
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('follows a TS import to the exported declaration: its signature, not its body', async () => {
        write('src/math.ts', 'export function add(a: number, b: number): number {\n    return a + b;\n}\nexport const ZERO = 0;\n');
        const found = await find('src/main.ts', "import { add, ZERO as zero } from './math';\n\nconst total = █\n");
        assert.deepEqual(found.map(snippet => [snippet.path, snippet.symbol, snippet.content, snippet.startLine]), [
            ['src/math.ts', 'add', 'export function add(a: number, b: number): number {', 0],
            ['src/math.ts', 'zero', 'export const ZERO = 0;', 3]
        ]);
    });

    it('ranks the symbols the code near the cursor uses above the others', async () => {
        write('src/lib.ts', 'export function rarely(): void {}\nexport function often(x: number): void {}\n');
        const found = await find('src/main.ts', "import { rarely, often } from './lib';\n\nrarely();\n" + '\n'.repeat(200) + 'often(1);\noften(2);\n█\n');
        assert.deepEqual(found.map(snippet => snippet.symbol), ['often', 'rarely']);
    });

    it('follows barrels: export *, export { a as b } from, a local export list, a default export, an ESM .js specifier', async () => {
        write('src/core/widget.ts', 'export class Widget {\n    show(): void {\n    }\n}\n');
        write('src/core/names.ts', 'export const name = "x";\n');
        write('src/core/index.ts', "export * from './widget';\nexport { name as label } from './names';\n");
        write('src/alias.ts', "import { Widget as W } from './core';\nexport { W as Shown };\n");
        write('src/main-class.ts', 'export default class Main {\n    run(): void {\n    }\n}\n');
        const found = await find('src/app.ts', "import { Widget, label } from './core/index.js';\nimport { Shown } from './alias';\nimport Main from './main-class';\nconst w = new Widget();\n█\n");
        assert.deepEqual(found.map(snippet => [snippet.symbol, snippet.path, snippet.content.split('\n')[0]]).sort(), [
            ['Main', 'src/main-class.ts', 'export default class Main {'],
            ['Widget', 'src/core/widget.ts', 'export class Widget {'],
            ['label', 'src/core/names.ts', 'export const name = "x";']
        ], 'Shown is Widget again: one snippet per declaration, named for the symbol used near the cursor');
    });

    it('shows the best ranked declarations whole and the rest by their header alone', async () => {
        write('src/kinds.ts', 'export class First {\n    one(): void {\n    }\n}\nexport class Second {\n    two(): void {\n    }\n}\n');
        const found = await find('src/main.ts', "import { First, Second } from './kinds';\nnew First();\n█", undefined, { ...UNHURRIED, fullOutlines: 1 });
        assert.deepEqual(found.map(snippet => snippet.content), ['export class First {\n    one(): void {\n}', 'export class Second {']);
    });

    it('finds members used through a namespace import', async () => {
        write('src/util.ts', 'export function trim(s: string): string {\n    return s;\n}\nexport function pad(s: string): string {\n    return s;\n}\n');
        const found = await find('src/main.ts', "import * as util from './util';\nconst a = util.trim(x);\n█\n");
        assert.deepEqual(found.map(snippet => [snippet.symbol, snippet.content]), [['util.trim', 'export function trim(s: string): string {']]);
    });

    it('follows Python imports: relative, absolute from the top of the package tree, a package passing a name on, a submodule', async () => {
        write('app/__init__.py', '');
        write('app/models/__init__.py', 'from .user import User\n');
        write('app/models/user.py', 'class User(Base):\n    name: str\n\n    def greet(self, other: "User") -> str:\n        return ""\n');
        write('app/util.py', 'def slug(text: str) -> str:\n    return text\n');
        write('app/config.py', 'TIMEOUT = 5\n');
        const found = await find('app/views.py', 'from .models import User\nfrom app.util import slug\nfrom app import config\n\ndef view():\n    t = config.TIMEOUT\n    █\n');
        assert.deepEqual(found.map(snippet => [snippet.symbol, snippet.path, snippet.content]).sort(), [
            ['User', 'app/models/user.py', 'class User(Base):\n    name: str\n    def greet(self, other: "User") -> str:'],
            ['config.TIMEOUT', 'app/config.py', 'TIMEOUT = 5'],
            ['slug', 'app/util.py', 'def slug(text: str) -> str:']
        ]);
    });

    it('shows what the IDE located first, and nothing from an ignored or outside file', async () => {
        write('.qodeassistignore', 'secret.ts\n');
        write('src/secret.ts', 'export const KEY = "s3cr3t";\n');
        write('src/shapes.ts', 'export interface Shape {\n    area(): number;\n}\n');
        write('src/lexical.ts', 'export const lexical = 1;\n');
        const found = await find('src/main.ts', "import { KEY } from './secret';\nimport { lexical } from './lexical';\n█", [
            { path: join(root, 'src/shapes.ts'), line: 0, symbol: 'Shape' },
            { path: join(root, 'src/secret.ts'), line: 0 },
            { path: '/etc/hostname', line: 0 }
        ]);
        assert.deepEqual(found.map(snippet => [snippet.symbol, snippet.path, snippet.score > 100]), [['Shape', 'src/shapes.ts', true], ['lexical', 'src/lexical.ts', false]]);
        assert.ok(!found.some(snippet => snippet.content.includes('s3cr3t')));
    });

    it('reads no more files from disk than its bound', async () => {
        for (let i = 0; i < 6; i++) {
            write(`src/m${i}.ts`, `export const v${i} = ${i};\n`);
        }
        const imports = Array.from({ length: 6 }, (_, i) => `import { v${i} } from './m${i}';`).join('\n');
        const found = await find('src/main.ts', `${imports}\n█`, undefined, { ...UNHURRIED, maxReads: 3 });
        assert.equal(found.length, 3);
    });

    it('past its deadline reads nothing more for this request, but reads it for the next', async () => {
        write('src/late.ts', 'export const late = 1;\n');
        const cache = new SourceFileCache();
        const marked = "import { late } from './late';\n█";
        assert.deepEqual(await find('src/main.ts', marked, undefined, { ...DEFAULT_DEFINITIONS, deadlineMs: -1 }, cache), []);
        for (let tries = 0; tries < 100 && !cache.isFresh(join(root, 'src/late.ts')); tries++) {
            await new Promise(resolve => setTimeout(resolve, 5));
        }
        const next = await find('src/main.ts', marked, undefined, { ...DEFAULT_DEFINITIONS, deadlineMs: -1 }, cache);
        assert.deepEqual(next.map(snippet => snippet.content), ['export const late = 1;']);
    });

    it('weights uses by closeness to the cursor and leaves the import lines out', () => {
        const text = "import { a } from './a';\na.b();\n\na\n";
        const usage = usageNearCursor(text, text.length - 1, importsOf(text, 'ts'));
        assert.equal(usage.get('a.b'), 1 / (1 + 2 / 8));
        assert.equal(usage.get('a'), 1 / (1 + 2 / 8) + 1);
    });
});
