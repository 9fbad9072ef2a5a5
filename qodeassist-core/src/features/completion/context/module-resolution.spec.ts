import * as assert from 'node:assert/strict';
import { moduleCandidates, submoduleSpecifier } from './module-resolution';

describe('module resolution', () => {
    it('tries a TS relative specifier as a TypeScript file or folder first, then as JavaScript', () => {
        assert.deepEqual(moduleCandidates('./util', '/w/src/a.ts', 'ts'), [
            '/w/src/util.ts', '/w/src/util.tsx', '/w/src/util/index.ts', '/w/src/util/index.tsx', '/w/src/util.js', '/w/src/util.jsx', '/w/src/util.d.ts',
            '/w/src/util.mjs', '/w/src/util.cjs', '/w/src/util/index.js'
        ]);
    });

    it('maps an ESM `.js` specifier to the TypeScript source first, and takes an explicit `.ts` as it is', () => {
        assert.deepEqual(moduleCandidates('../core/index.js', '/w/src/v4/a.ts', 'ts'), ['/w/src/core/index.ts', '/w/src/core/index.tsx', '/w/src/core/index.d.ts', '/w/src/core/index.js']);
        assert.deepEqual(moduleCandidates('./x.ts', '/w/a.ts', 'ts'), ['/w/x.ts']);
    });

    it('leaves packages and path aliases alone: they are not the workspace\'s own code', () => {
        assert.deepEqual(moduleCandidates('@theia/core', '/w/a.ts', 'ts'), []);
        assert.deepEqual(moduleCandidates('lodash/fp', '/w/a.ts', 'ts'), []);
    });

    it('resolves Python relative imports level by level, and absolute ones under each base', () => {
        assert.deepEqual(moduleCandidates('.models', '/w/pkg/sub/views.py', 'py'), ['/w/pkg/sub/models.py', '/w/pkg/sub/models/__init__.py', '/w/pkg/sub/models.pyi']);
        assert.deepEqual(moduleCandidates('..util.text', '/w/pkg/sub/views.py', 'py'), ['/w/pkg/util/text.py', '/w/pkg/util/text/__init__.py', '/w/pkg/util/text.pyi']);
        assert.deepEqual(moduleCandidates('.', '/w/pkg/sub/views.py', 'py'), ['/w/pkg/sub/__init__.py']);
        assert.deepEqual(moduleCandidates('pkg.util', '/w/pkg/sub/views.py', 'py', ['/w', '/w/src', '/w']), [
            '/w/pkg/util.py', '/w/pkg/util/__init__.py', '/w/pkg/util.pyi', '/w/src/pkg/util.py', '/w/src/pkg/util/__init__.py', '/w/src/pkg/util.pyi'
        ]);
    });

    it('names a submodule of a package import', () => {
        assert.equal(submoduleSpecifier('.', 'models'), '.models');
        assert.equal(submoduleSpecifier('..', 'models'), '..models');
        assert.equal(submoduleSpecifier('pkg.sub', 'models'), 'pkg.sub.models');
    });
});
