import * as assert from 'node:assert/strict';
import { declarationAt, indexModule } from './declaration-index';

const TS = `import { Base } from './base';

/** Parses things. */
export function parse(
    text: string,
    options: ParseOptions = {}
): Result {
    const lines = text.split('\\n');
    return { lines };
}

export const add = (a: number, b: number): number => a + b;
export const LIMIT = 10;

export interface ParseOptions {
    strict?: boolean;
    // a comment
    onError(message: string): void;
}

@injectable()
export class Parser extends Base {
    private cache = new Map<string, Result>();
    readonly name = 'parser';

    constructor(private readonly log: Logger) {
        super();
    }

    run(input: string): Result {
        return parse(input);
    }
    #secret(): void { }
}

export type Result = { lines: string[] };
export type Kind =
    | 'a'
    | 'b';
export enum Color { Red, Green }
function helper(): void { }
export { helper as publicHelper };
export default Parser;
`;

describe('declaration index', () => {
    const index = indexModule(TS, 'ts');

    it('shows a function by its signature, however many lines it takes, never its body', () => {
        const signature = 'export function parse(\n    text: string,\n    options: ParseOptions = {}\n): Result {';
        assert.deepEqual(index.declarations.get('parse'), { name: 'parse', line: 3, text: signature, header: signature });
        assert.equal(index.declarations.get('add')!.text, 'export const add = (a: number, b: number): number => a + b;');
        assert.equal(index.declarations.get('LIMIT')!.text, 'export const LIMIT = 10;');
    });

    it('outlines a class or interface: header, the first line of each public member, the closing brace', () => {
        assert.equal(index.declarations.get('ParseOptions')!.text, 'export interface ParseOptions {\n    strict?: boolean;\n    onError(message: string): void;\n}');
        assert.equal(index.declarations.get('Parser')!.text, [
            'export class Parser extends Base {',
            "    readonly name = 'parser';",
            '    constructor(private readonly log: Logger) {',
            '    run(input: string): Result {',
            '}'
        ].join('\n'));
        assert.equal(index.declarations.get('Parser')!.line, 21);
        assert.equal(index.declarations.get('Parser')!.header, 'export class Parser extends Base {', 'the header alone, for when the budget is short');
    });

    it('takes type aliases to their end, enums whole, and non-exported declarations too', () => {
        assert.equal(index.declarations.get('Result')!.text, 'export type Result = { lines: string[] };');
        assert.equal(index.declarations.get('Kind')!.text, "export type Kind =\n    | 'a'\n    | 'b';");
        assert.equal(index.declarations.get('Color')!.text, 'export enum Color { Red, Green }');
        assert.equal(index.declarations.get('helper')!.text, 'function helper(): void { }');
    });

    it('records exports under other names', () => {
        assert.deepEqual([...index.aliases], [['publicHelper', 'helper'], ['default', 'Parser']]);
        assert.deepEqual(index.imports.map(statement => statement.module), ['./base']);
    });

    it('caps a long member list with a line saying how many were left out', () => {
        const members = Array.from({ length: 40 }, (_, i) => `    field${i}: number;`).join('\n');
        const text = indexModule(`export interface Wide {\n${members}\n}\n`, 'ts').declarations.get('Wide')!.text.split('\n');
        assert.equal(text.length, 24);
        assert.equal(text[22], '    // … 19 more');
        assert.equal(text[23], '}');
    });

    it('reads Python: def signatures, class outlines without private members, module constants', () => {
        const python = indexModule([
            'import os',
            'DEFAULT_TIMEOUT: float = 15.0',
            '',
            'async def fetch(url: str,',
            '                timeout: float = DEFAULT_TIMEOUT) -> bytes:',
            '    """Fetch it."""',
            '    return b""',
            '',
            '@dataclass',
            'class Session(Base):',
            '    retries: int = 3',
            '    _pool = None',
            '',
            '    def __init__(self, url: str) -> None:',
            '        self.url = url',
            '',
            '    def _private(self):',
            '        pass',
            '',
            '    def get(self, path: str) -> bytes:',
            '        return b""',
            '',
            'if TYPE_CHECKING:',
            '    hidden = 1'
        ].join('\n'), 'py');
        assert.deepEqual([...python.declarations.keys()], ['DEFAULT_TIMEOUT', 'fetch', 'Session']);
        assert.equal(python.declarations.get('fetch')!.text, 'async def fetch(url: str,\n                timeout: float = DEFAULT_TIMEOUT) -> bytes:');
        assert.equal(python.declarations.get('Session')!.text, [
            'class Session(Base):', '    retries: int = 3', '    def __init__(self, url: str) -> None:', '    def get(self, path: str) -> bytes:'
        ].join('\n'));
        assert.equal(python.declarations.get('DEFAULT_TIMEOUT')!.line, 1);
    });

    it('extracts the declaration an IDE location points at, at any depth', () => {
        assert.deepEqual(declarationAt(TS, 29, 'ts'), { name: 'run', line: 29, text: '    run(input: string): Result {', header: '    run(input: string): Result {' });
        assert.equal(declarationAt(TS, 14, 'ts')!.text, 'export interface ParseOptions {\n    strict?: boolean;\n    onError(message: string): void;\n}');
        assert.equal(declarationAt(TS, 1, 'ts'), undefined, 'a blank line declares nothing');
        assert.equal(declarationAt(TS, 500, 'ts'), undefined);
    });
});
