import * as assert from 'node:assert/strict';
import { PreferenceService } from '@theia/core';
import { disabledReason, QodeAssistPreferences, QodeAssistPreferenceSchema } from './qodeassist-preferences';

describe('QodeAssist preferences', () => {
    const properties = Object.entries(QodeAssistPreferenceSchema.properties);

    it('cover every feature: completion, chat, refactor, tools, MCP, and the per-project switch', () => {
        const names = properties.map(([name]) => name);
        for (const prefix of ['qodeassist.completion.', 'qodeassist.chat.', 'qodeassist.refactor.', 'qodeassist.tools.', 'qodeassist.mcp.server.']) {
            assert.ok(names.some(name => name.startsWith(prefix)), prefix);
        }
        assert.ok(names.includes('qodeassist.enabled'));
    });

    for (const [name, schema] of properties) {
        it(`${name}: a description that says what it does, a default of its type`, () => {
            assert.ok((schema.description ?? '').length >= 20, 'described');
            assert.ok('default' in schema, 'has a default');
            const type = Array.isArray(schema.default) ? 'array' : typeof schema.default;
            assert.equal(type === 'number' && schema.type === 'number' ? 'number' : type, schema.type === 'array' ? 'array' : schema.type, `default ${JSON.stringify(schema.default)} is a ${schema.type}`);
            if (schema.enum) {
                assert.ok(schema.enum.includes(schema.default as string), 'the default is one of the choices');
            }
            if (typeof schema.default === 'number') {
                assert.ok(schema.minimum === undefined || schema.default >= schema.minimum);
                assert.ok(schema.maximum === undefined || schema.default <= schema.maximum);
            }
        });
    }

    it('says why QodeAssist must not act: off for the project, or AI off in the IDE', () => {
        const preferences = (enabled: boolean) => ({ 'qodeassist.enabled': enabled }) as unknown as QodeAssistPreferences;
        const ide = (enableAI: boolean | undefined) => ({ get: (key: string) => key === 'ai-features.AiEnable.enableAI' ? enableAI : undefined }) as unknown as PreferenceService;
        assert.equal(disabledReason(preferences(true), ide(undefined)), undefined);
        assert.equal(disabledReason(preferences(true), ide(true)), undefined);
        assert.match(disabledReason(preferences(false), ide(true)) ?? '', /turned off for this project \(qodeassist\.enabled\)/);
        assert.match(disabledReason(preferences(true), ide(false)) ?? '', /AI features are turned off in the IDE/);
        assert.match(disabledReason(preferences(true), ide(undefined), { isActive: false }) ?? '', /AI features are turned off in the IDE/, 'Theia AI\'s activation service');
        assert.equal(disabledReason(preferences(true), ide(undefined), { isActive: true }), undefined);
    });
});
