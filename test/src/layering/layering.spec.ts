import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { checkImportCycles, checkRepository, checkSource } from './layering-rules';

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
        ['context importing session', 'qodeassist-core/src/context/a.ts', `import { HistoryMessage } from '../session/conversation-history';`, /context must not import session/],
        ['context type-importing session', 'qodeassist-core/src/context/a.ts', `import type { Session } from '../session/session';`, /context must not import session/],
        ['tools importing skills', 'qodeassist-core/src/tools/a.ts', `import { SkillsEngine } from '../skills/skills-engine';`, /tools must not import skills/],
        ['runtime importing the ACP server', 'qodeassist-core/src/runtime/a.ts', `import { main } from '../acp-server/main';`, /runtime \(layer 4\) must not import the higher layer acp-server \(layer 5\)/],
        ['protocol importing anything', 'qodeassist-core/src/protocol/a.ts', `import { z } from 'zod';`, /protocol\/ is the entry the browser loads and imports nothing/],
        ['browser value-importing a deep core path', 'qodeassist-theia/src/browser/chat/a.ts', `import { sumCosts } from '@qodeassist/core/lib/protocol';`, /values only from @qodeassist\/core\/protocol/],
        ['a core folder without a layer', 'qodeassist-core/src/newfolder/a.ts', `export const x = 1;`, /core folder newfolder\/ has no layer/],
        ['checkpoints importing the chat feature', 'qodeassist-core/src/checkpoints/a.ts', `import { ChatFeature } from '../features/chat/chat-feature';`, /checkpoints \(layer 3\) must not import the higher layer features/],
        ['one feature importing another', 'qodeassist-core/src/features/chat/a.ts', `import { x } from '../completion/b';`, /feature chat must not import feature completion/],
        ['common importing fs', 'qodeassist-theia/src/common/a.ts', `import { readFileSync } from 'fs';`, /common must not import Node code/],
        ['common importing node:path', 'qodeassist-theia/src/common/a.ts', `import { join } from 'node:path';`, /common must not import Node code/],
        ['common importing Theia browser code', 'qodeassist-theia/src/common/a.ts', `import { Widget } from '@theia/core/lib/browser/widgets/widget';`, /common must not import browser or Node code/],
        ['common value-importing core', 'qodeassist-theia/src/common/a.ts', `import { Session } from '@qodeassist/core';`, /only as types/],
        ['browser importing node/', 'qodeassist-theia/src/browser/a.ts', `import { X } from '../node/x';`, /browser must not import Node code/],
        ['browser value-importing core', 'qodeassist-theia/src/browser/chat/a.ts', `import { Session } from '@qodeassist/core';`, /only as types/],
        ['refactor importing browser/chat', 'qodeassist-theia/src/browser/refactor/a.ts', `import { ErrorView } from '../chat/chat-message-view';`, /browser\/refactor must not import browser\/chat/],
        ['mcp type-importing browser/chat', 'qodeassist-theia/src/browser/mcp/a.ts', `import type { ChatController } from '../chat/chat-controller';`, /browser\/mcp must not import browser\/chat/],
        ['prompt importing context', 'qodeassist-core/src/prompt/a.ts', `import { formatFile } from '../context/env-block';`, /prompt must not import context/],
        ['a class in ports/', 'qodeassist-core/src/ports/a.ts', `export class FixedPolicy { }`, /ports\/ declares the interfaces a host implements, types only/],
        ['a constant in ports/', 'qodeassist-core/src/ports/a.ts', `export const SILENT = { log: () => undefined };`, /types only/],
        ['a function in ports/', 'qodeassist-core/src/ports/a.ts', `export function noop(): void { }`, /types only/],
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
        ['session importing context', 'qodeassist-core/src/session/a.ts', `import { HistoryMessage } from '../context/conversation-history';`],
        ['context importing prompt', 'qodeassist-core/src/context/a.ts', `import { CtxMessage } from '../prompt/template-context';`],
        ['the ACP server importing the chat feature and the runtime', 'qodeassist-core/src/acp-server/a.ts', `import { ChatFeature } from '../features/chat/chat-feature';\nimport { QodeAssistRuntime } from '../runtime/qodeassist-runtime';`],
        ['skills importing tools', 'qodeassist-core/src/skills/a.ts', `import { AnyTool } from '../tools/tool';`],
        ['browser value-importing the core protocol entry', 'qodeassist-theia/src/browser/chat/a.ts', `import { sumCosts } from '@qodeassist/core/protocol';`],
        ['common value-importing the core protocol entry', 'qodeassist-theia/src/common/a.ts', `export { ACP_AGENT_PREFIX } from '@qodeassist/core/protocol';`],
        ['core importing protocol', 'qodeassist-core/src/mcp/a.ts', `import { ATTACHMENT_LIMITS } from '../protocol';`],
        ['a property named document', 'qodeassist-core/src/wire/a.ts', `const o = { document: 1 }; export const d = o.document;`],
        ['a browser spec using node:assert', 'qodeassist-theia/src/browser/a.spec.ts', `import * as assert from 'node:assert/strict';`],
        ['chat importing browser/shared', 'qodeassist-theia/src/browser/chat/a.ts', `import { ErrorView } from '../shared/error-view';`],
        ['the frontend module importing browser/chat', 'qodeassist-theia/src/browser/qodeassist-frontend-module.ts', `import { ChatWidget } from './chat/chat-widget';`],
        ['node using core values', 'qodeassist-theia/src/node/a.ts', `import { Session } from '@qodeassist/core';`],
        ['interfaces and types in ports/', 'qodeassist-core/src/ports/a.ts', `import { Diagnostic } from './diagnostics';\nexport interface Host { diagnostics(): Diagnostic[] }\nexport type Level = 'a' | 'b';`]
    ];
    for (const [name, path, text] of mustPass) {
        it(`accepts ${name}`, () => {
            assert.deepEqual(checkSource(path, text), []);
        });
    }
});

describe('import cycle check', () => {
    const core = (files: Record<string, string>) => new Map(Object.entries(files).map(([path, text]) => [`qodeassist-core/src/${path}`, text]));

    it('reports two files importing each other once, at the first file by name', () => {
        const violations = checkImportCycles(core({
            'wire/b.ts': `import { a } from './a';\nexport const b = 1;`,
            'wire/a.ts': `import { x } from './x';\nimport { b } from './b';\nexport const a = 1;`,
            'wire/x.ts': `export const x = 1;`
        }));
        assert.deepEqual(violations, [{ file: 'qodeassist-core/src/wire/a.ts', line: 2, rule: 'import cycle: wire/a.ts → wire/b.ts → wire/a.ts' }]);
    });

    it('counts a type-only import that closes a cycle', () => {
        const violations = checkImportCycles(core({
            'wire/host.ts': `import type { Body } from './protocols';`,
            'wire/protocols.ts': `import { host } from './host';\nexport type Body = object;`
        }));
        assert.deepEqual(violations.map(v => v.rule), ['import cycle: wire/host.ts → wire/protocols.ts → wire/host.ts']);
    });

    it('follows a cycle across folders, re-exports and index files', () => {
        const violations = checkImportCycles(core({
            'context/a.ts': `export * from '../session';`,
            'session/index.ts': `import { c } from '../tools/c';`,
            'tools/c.ts': `const a = import('../context/a');`
        }));
        assert.deepEqual(violations.map(v => v.rule), ['import cycle: context/a.ts → session/index.ts → tools/c.ts → context/a.ts']);
    });

    it('reports entangled cycles once, naming every file tied in them', () => {
        const violations = checkImportCycles(core({
            'wire/a.ts': `import { b } from './b';`,
            'wire/b.ts': `import { a } from './a';\nimport { c } from './c';`,
            'wire/c.ts': `import { b } from './b';`
        }));
        assert.deepEqual(violations.map(v => v.rule), ['import cycle: wire/a.ts → wire/b.ts → wire/a.ts (also tied in: wire/c.ts)']);
    });

    it('reports a file that imports itself', () => {
        const violations = checkImportCycles(core({ 'wire/a.ts': `export const a = 1;\nexport { a as b } from './a';` }));
        assert.deepEqual(violations, [{ file: 'qodeassist-core/src/wire/a.ts', line: 2, rule: 'import cycle: wire/a.ts → wire/a.ts' }]);
    });

    it('accepts shared dependencies without a cycle and ignores packages and missing files', () => {
        const violations = checkImportCycles(core({
            'wire/top.ts': `import { l } from './left';\nimport { r } from './right';\nimport { z } from 'zod';`,
            'wire/left.ts': `import { base } from './base';`,
            'wire/right.ts': `import { base } from './base';\nimport { gone } from './gone';`,
            'wire/base.ts': `export const base = 1;`
        }));
        assert.deepEqual(violations, []);
    });
});
