import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfigRoots } from '../config/config-layers';
import { loadConfiguration } from './configuration-loader';

describe('pricing: [pricing] in provider and agent files', () => {
    let user: string;
    beforeEach(() => {
        user = mkdtempSync(join(tmpdir(), 'qodeassist-pricing-'));
        mkdirSync(join(user, 'agents'));
        mkdirSync(join(user, 'providers'));
    });
    afterEach(() => rmSync(user, { recursive: true, force: true }));

    const provider = (pricing: string) => {
        const path = join(user, 'providers', 'openai.toml');
        writeFileSync(path, `schema_version = 1\nname = "openai"\nclient_api = "openai"\napi_key_ref = "openai"\n\n${pricing}\n`);
        return path;
    };
    const agent = (name: string, text: string) => {
        const path = join(user, 'agents', `${name}.toml`);
        writeFileSync(path, `schema_version = 1\nname = "${name}"\n${text}\n`);
        return path;
    };
    const load = () => {
        const bundled = defaultConfigRoots();
        return loadConfiguration({ bundledAgents: bundled.bundledAgents, bundledProviders: bundled.bundledProviders, user });
    };

    it('a provider prices its agents per model name; an agent\'s entry for its model wins; an unpriced model has none', () => {
        provider('[pricing."gpt-4.1"]\ninput_per_mtok = 2.0\noutput_per_mtok = 8.0\ncached_input_per_mtok = 0.5\n\n[pricing."gpt-4.1-mini"]\ninput_per_mtok = 0.4\noutput_per_mtok = 1.6');
        agent('cheap-chat', 'extends = "openai-chat"\nmodel = "gpt-4.1-mini"');
        agent('negotiated-chat', 'extends = "openai-chat"\n\n[pricing."gpt-4.1"]\ninput_per_mtok = 1.0\noutput_per_mtok = 4.0\ncurrency = "EUR"');
        agent('unpriced-chat', 'extends = "openai-chat"\nmodel = "gpt-5"');
        const configuration = load();
        assert.deepEqual(configuration.issues.filter(issue => issue.severity === 'error'), []);
        assert.deepEqual(configuration.agents.get('openai-chat')!.pricing, { input_per_mtok: 2, output_per_mtok: 8, cached_input_per_mtok: 0.5 });
        assert.deepEqual(configuration.agents.get('cheap-chat')!.pricing, { input_per_mtok: 0.4, output_per_mtok: 1.6 });
        assert.deepEqual(configuration.agents.get('negotiated-chat')!.pricing, { input_per_mtok: 1, output_per_mtok: 4, currency: 'EUR' });
        assert.equal(configuration.agents.get('unpriced-chat')!.pricing, undefined);
        assert.equal(configuration.agents.get('claude-chat')!.pricing, undefined, 'bundled providers ship no prices');
    });

    const refusals: Array<{ name: string; pricing: string; line: number | undefined; field: string; message: string }> = [
        {
            name: 'a negative price', pricing: '[pricing."gpt-4.1"]\ninput_per_mtok = -2\noutput_per_mtok = 8', line: 7, field: 'pricing.gpt-4.1.input_per_mtok',
            message: '[pricing] input_per_mtok must be a price per million tokens: a number of 0 or more, e.g. input_per_mtok = 3.0'
        },
        {
            name: 'a price as text', pricing: '[pricing."gpt-4.1"]\ninput_per_mtok = 2\noutput_per_mtok = "$8"', line: 8, field: 'pricing.gpt-4.1.output_per_mtok',
            message: '[pricing] output_per_mtok must be a price per million tokens: a number of 0 or more, e.g. output_per_mtok = 3.0'
        },
        {
            name: 'a missing output price', pricing: '[pricing."gpt-4.1"]\ninput_per_mtok = 2', line: undefined, field: 'pricing.gpt-4.1.output_per_mtok',
            message: '[pricing] output_per_mtok must be a price per million tokens: a number of 0 or more, e.g. output_per_mtok = 3.0'
        },
        {
            name: 'a currency that is not a code', pricing: '[pricing."gpt-4.1"]\ninput_per_mtok = 2\noutput_per_mtok = 8\ncurrency = "dollars"', line: 9, field: 'pricing.gpt-4.1.currency',
            message: '[pricing] currency must be a three-letter currency code in capitals, e.g. currency = "USD"'
        },
        {
            name: 'prices not under a model name', pricing: '[pricing]\ninput_per_mtok = 2', line: 7, field: 'pricing.input_per_mtok',
            message: 'a [pricing] entry is a table named by the model it prices, e.g. [pricing."gpt-4.1"] with input_per_mtok = 2.0 and output_per_mtok = 8.0'
        }
    ];
    for (const refusal of refusals) {
        it(`refuses ${refusal.name} in a provider file, naming the file, the line, the key and the fix`, () => {
            const file = provider(refusal.pricing);
            const issues = load().issues.filter(issue => issue.file === file);
            assert.deepEqual(issues.map(issue => [issue.severity, issue.line, issue.field, issue.message]), [['error', refusal.line, refusal.field, refusal.message]]);
        });
    }

    it('an unknown key in a price says which key was meant', () => {
        const file = provider('[pricing."gpt-4.1"]\ninput_per_mtok = 2\noutput_per_mtok = 8\ncached_input_per_mtk = 1');
        const issues = load().issues.filter(issue => issue.file === file);
        assert.deepEqual(issues.map(issue => [issue.line, issue.field, issue.message, issue.fix]),
            [[9, 'pricing.gpt-4.1.cached_input_per_mtk', 'unknown key "cached_input_per_mtk"', 'did you mean "cached_input_per_mtok"?']]);
    });

    it('a bad price in an agent file leaves only that agent out, with the key named', () => {
        const file = agent('mine', 'extends = "openai-chat"\n\n[pricing."gpt-4.1"]\ninput_per_mtok = "cheap"\noutput_per_mtok = 8');
        const configuration = load();
        assert.deepEqual(configuration.issues.filter(issue => issue.file === file).map(issue => [issue.severity, issue.line, issue.field]),
            [['error', 6, 'pricing.gpt-4.1.input_per_mtok']]);
        assert.equal(configuration.agents.has('mine'), false);
        assert.equal(configuration.agents.has('openai-chat'), true);
    });

    describe('the administrator\'s prices win for the providers the administrator defines', () => {
        let managed: string;
        beforeEach(() => {
            managed = mkdtempSync(join(tmpdir(), 'qodeassist-pricing-managed-'));
            mkdirSync(join(managed, 'providers'));
            mkdirSync(join(managed, 'agents'));
            writeFileSync(join(managed, 'providers', 'corp.toml'), [
                'schema_version = 1', 'name = "corp"', 'client_api = "openai_compatible"', 'url = "https://gateway.corp.example/v1"', 'api_key_ref = "corp"', '',
                '[pricing."gpt-4.1"]', 'input_per_mtok = 2.0', 'output_per_mtok = 8.0', ''
            ].join('\n'));
        });
        afterEach(() => rmSync(managed, { recursive: true, force: true }));
        const loadManaged = () => {
            const bundled = defaultConfigRoots();
            return loadConfiguration({ bundledAgents: bundled.bundledAgents, bundledProviders: bundled.bundledProviders, user, managed });
        };
        const corpAgent = (pricing: string) => `provider_instance = "corp"\nextends = "openai-base"\nmodel = "gpt-4.1"\n${pricing}`;

        it('a user agent\'s own price (0, or another currency) is set aside for the managed provider\'s, with a notice', () => {
            agent('free', corpAgent('\n[pricing."gpt-4.1"]\ninput_per_mtok = 0.0\noutput_per_mtok = 0.0'));
            const path = agent('yen', corpAgent('\n[pricing."gpt-4.1"]\ninput_per_mtok = 1.0\noutput_per_mtok = 1.0\ncurrency = "JPY"'));
            const configuration = loadManaged();
            assert.deepEqual(configuration.agents.get('free')!.pricing, { input_per_mtok: 2, output_per_mtok: 8 });
            assert.deepEqual(configuration.agents.get('yen')!.pricing, { input_per_mtok: 2, output_per_mtok: 8 });
            const notice = configuration.issues.find(issue => issue.file === path);
            assert.deepEqual([notice?.severity, notice?.field], ['notice', 'pricing.gpt-4.1']);
            assert.match(notice!.message, /agent "yen": its \[pricing."gpt-4.1"\] is not used: provider "corp" is at https:\/\/gateway\.corp\.example, where the prices are managed by your administrator/);
        });

        it('a user provider at the managed provider\'s origin takes the managed price too', () => {
            writeFileSync(join(user, 'providers', 'mine.toml'), 'schema_version = 1\nname = "mine"\nclient_api = "openai_compatible"\nurl = "https://gateway.corp.example/v1"\napi_key_ref = "corp"\n\n[pricing."gpt-4.1"]\ninput_per_mtok = 0.0\noutput_per_mtok = 0.0\n');
            agent('mine-chat', 'provider_instance = "mine"\nextends = "openai-base"\nmodel = "gpt-4.1"');
            assert.deepEqual(loadManaged().agents.get('mine-chat')!.pricing, { input_per_mtok: 2, output_per_mtok: 8 });
        });

        it('a managed agent\'s own price beats its managed provider\'s; a user agent extending it keeps it unless it changes it', () => {
            writeFileSync(join(managed, 'agents', 'corp-chat.toml'), `schema_version = 1\nname = "corp-chat"\n${corpAgent('\n[pricing."gpt-4.1"]\ninput_per_mtok = 3.0\noutput_per_mtok = 12.0')}\n`);
            agent('mine', 'extends = "corp-chat"\ndescription = "mine"');
            agent('cheaper', 'extends = "corp-chat"\n\n[pricing."gpt-4.1"]\ninput_per_mtok = 0.0\noutput_per_mtok = 12.0');
            const configuration = loadManaged();
            assert.deepEqual(configuration.agents.get('corp-chat')!.pricing, { input_per_mtok: 3, output_per_mtok: 12 });
            assert.deepEqual(configuration.agents.get('mine')!.pricing, { input_per_mtok: 3, output_per_mtok: 12 });
            assert.deepEqual(configuration.agents.get('cheaper')!.pricing, { input_per_mtok: 2, output_per_mtok: 8 }, 'an entry the user touched falls back to the managed provider\'s');
        });

        it('providers elsewhere keep the agent-over-provider rule', () => {
            provider('[pricing."gpt-4.1"]\ninput_per_mtok = 2.0\noutput_per_mtok = 8.0');
            agent('negotiated', 'extends = "openai-chat"\n\n[pricing."gpt-4.1"]\ninput_per_mtok = 1.0\noutput_per_mtok = 4.0');
            assert.deepEqual(loadManaged().agents.get('negotiated')!.pricing, { input_per_mtok: 1, output_per_mtok: 4 });
        });
    });
});
