import * as assert from 'node:assert/strict';
import { importsOf, lineAt, lineStarts, reExportsOf } from './import-statements';

describe('import statements', () => {
    it('reads every TypeScript import form that names something, with the lines it spans', () => {
        const text = [
            "import './polyfill';",
            "import Default, { a, b as c, type T } from './x';",
            "import * as ns from '../y.js';",
            'import type { Only } from "./types";',
            'import {',
            '    multi,',
            '    line as renamed',
            "} from './multi';",
            "import fs = require('fs');",
            "const { one, two: second } = require('./cjs');",
            "const whole = require('./whole');"
        ].join('\n');
        assert.deepEqual(importsOf(text, 'ts'), [
            { module: './x', names: [{ imported: 'a', local: 'a' }, { imported: 'b', local: 'c' }, { imported: 'T', local: 'T' }, { imported: 'default', local: 'Default' }], line: 1, endLine: 1 },
            { module: '../y.js', names: [{ imported: '*', local: 'ns' }], line: 2, endLine: 2 },
            { module: './types', names: [{ imported: 'Only', local: 'Only' }], line: 3, endLine: 3 },
            { module: './multi', names: [{ imported: 'multi', local: 'multi' }, { imported: 'line', local: 'renamed' }], line: 4, endLine: 7 },
            { module: 'fs', names: [{ imported: '*', local: 'fs' }], line: 8, endLine: 8 },
            { module: './cjs', names: [{ imported: 'one', local: 'one' }, { imported: 'two', local: 'second' }], line: 9, endLine: 9 },
            { module: './whole', names: [{ imported: '*', local: 'whole' }], line: 10, endLine: 10 }
        ]);
    });

    it('reads Python from-imports (relative, parenthesised, star) and plain imports as namespaces', () => {
        const text = [
            'from .models import User, Group as G',
            'from ..util import (',
            '    helper,  # comment',
            '    other,',
            ')',
            'from pkg.sub import *',
            'import os.path, json as j',
            'def f():',
            '    from . import local_mod'
        ].join('\n');
        assert.deepEqual(importsOf(text, 'py'), [
            { module: '.models', names: [{ imported: 'User', local: 'User' }, { imported: 'Group', local: 'G' }], line: 0, endLine: 0 },
            { module: '..util', names: [{ imported: 'helper', local: 'helper' }, { imported: 'other', local: 'other' }], line: 1, endLine: 4 },
            { module: 'pkg.sub', names: [{ imported: '*', local: '*' }], line: 5, endLine: 5 },
            { module: 'os.path', names: [{ imported: '*', local: 'os.path' }], line: 6, endLine: 6 },
            { module: 'json', names: [{ imported: '*', local: 'j' }], line: 6, endLine: 6 },
            { module: '.', names: [{ imported: 'local_mod', local: 'local_mod' }], line: 8, endLine: 8 }
        ]);
    });

    it('reads what a module passes on: export lists, stars, namespaces; in Python every from-import', () => {
        const ts = "export * from './a';\nexport { b, c as d } from './bc';\nexport * as ns from './n';\nexport type { T } from './t';\nexport const own = 1;";
        assert.deepEqual(reExportsOf(ts, 'ts'), [
            { module: './a' },
            { module: './bc', names: [{ imported: 'b', local: 'b' }, { imported: 'c', local: 'd' }] },
            { module: './n', names: [{ imported: '*', local: 'ns' }] },
            { module: './t', names: [{ imported: 'T', local: 'T' }] }
        ]);
        assert.deepEqual(reExportsOf('from .a import x as y\nfrom .b import *\nimport os\n', 'py'), [
            { module: '.a', names: [{ imported: 'x', local: 'y' }] },
            { module: '.b' }
        ]);
    });

    it('finds the line of an offset', () => {
        const starts = lineStarts('ab\ncd\n\nef');
        assert.deepEqual(starts, [0, 3, 6, 7]);
        assert.deepEqual([0, 2, 3, 6, 7, 9].map(offset => lineAt(starts, offset)), [0, 0, 1, 2, 3, 3]);
    });
});
