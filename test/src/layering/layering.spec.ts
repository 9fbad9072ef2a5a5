import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { checkRepository, checkSource } from './layering-rules';

const ROOT = join(__dirname, '..', '..', '..');

describe('layering check', () => {
    it('finds no violation in the repository', () => {
        const { violations, filesChecked } = checkRepository(ROOT, ['qodeassist-core', 'qodeassist-theia']);
        assert.ok(filesChecked > 10, `only ${filesChecked} files were checked`);
        assert.deepEqual(violations, []);
    });

    const mustFail: Array<[string, string, string, RegExp]> = [
        ['core importing Theia', 'qodeassist-core/src/wire/a.ts', `import { Emitter } from '@theia/core';`, /must not import Theia/],
        ['core importing React', 'qodeassist-core/src/session/a.ts', `import * as React from 'react';`, /must not import React/],
        ['core using document', 'qodeassist-core/src/wire/a.ts', `export const x = document.title;`, /DOM global document/],
        ['core using window', 'qodeassist-core/src/config/a.ts', `if (typeof window !== 'undefined') { }`, /DOM global window/],
        ['core requiring Theia', 'qodeassist-core/src/wire/a.ts', `const t = require('@theia/core');`, /must not import Theia/],
        ['wire importing session', 'qodeassist-core/src/wire/a.ts', `import { Session } from '../session/session';`, /layer 0.*higher layer session/],
        ['one feature importing another', 'qodeassist-core/src/features/chat/a.ts', `import { x } from '../completion/b';`, /feature chat must not import feature completion/],
        ['common importing fs', 'qodeassist-theia/src/common/a.ts', `import { readFileSync } from 'fs';`, /common must not import Node code/],
        ['common importing node:path', 'qodeassist-theia/src/common/a.ts', `import { join } from 'node:path';`, /common must not import Node code/],
        ['common importing Theia browser code', 'qodeassist-theia/src/common/a.ts', `import { Widget } from '@theia/core/lib/browser/widgets/widget';`, /common must not import browser or Node code/],
        ['common value-importing core', 'qodeassist-theia/src/common/a.ts', `import { Session } from '@qodeassist/core';`, /only as types/],
        ['browser importing node/', 'qodeassist-theia/src/browser/a.ts', `import { X } from '../node/x';`, /browser must not import Node code/],
        ['browser value-importing core', 'qodeassist-theia/src/browser/chat/a.ts', `import { Session } from '@qodeassist/core';`, /only as types/],
        ['node importing browser/', 'qodeassist-theia/src/node/a.ts', `import { ChatWidget } from '../browser/chat/chat-widget';`, /node must not import browser code/]
    ];
    for (const [name, path, text, rule] of mustFail) {
        it(`reports ${name}`, () => {
            const violations = checkSource(path, text);
            assert.equal(violations.length, 1, JSON.stringify(violations));
            assert.match(violations[0].rule, rule);
            assert.equal(violations[0].line, 1);
        });
    }

    const mustPass: Array<[string, string, string]> = [
        ['type-only core import in common', 'qodeassist-theia/src/common/a.ts', `import type { SessionEvent } from '@qodeassist/core';`],
        ['type-only core import in browser', 'qodeassist-theia/src/browser/a.ts', `import type { ErrorInfo } from '@qodeassist/core';`],
        ['session importing wire', 'qodeassist-core/src/session/a.ts', `import { ResponseEvent } from '../wire/events';`],
        ['a property named document', 'qodeassist-core/src/wire/a.ts', `const o = { document: 1 }; export const d = o.document;`],
        ['a browser spec using node:assert', 'qodeassist-theia/src/browser/a.spec.ts', `import * as assert from 'node:assert/strict';`],
        ['node using core values', 'qodeassist-theia/src/node/a.ts', `import { Session } from '@qodeassist/core';`]
    ];
    for (const [name, path, text] of mustPass) {
        it(`accepts ${name}`, () => {
            assert.deepEqual(checkSource(path, text), []);
        });
    }
});
