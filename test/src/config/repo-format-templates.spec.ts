import * as assert from 'node:assert/strict';
import { rendersRepoFiles, syntheticContext, TemplateContext } from '@qodeassist/core';
import { bundledConfiguration } from './golden-bodies';

/** The synthetic context with cross-file context or without it (`repo_files` absent, as a request without any sends). */
function context(withRepo: boolean): TemplateContext {
    const rest: TemplateContext = { ...syntheticContext() };
    delete rest.repo_files;
    delete rest.repo_name;
    return withRepo ? {
        ...rest, repo_name: 'shop',
        repo_files: [
            { path: 'src/similar.ts', content: 'const near = 1;\n', source: 'similar' },
            { path: 'src/price.ts', content: 'export function price(cents: number): string {\n', source: 'definition' }
        ]
    } : rest;
}

describe('bundled FIM and instruct templates with cross-file context', () => {
    const configuration = bundledConfiguration();
    const body = (agent: string, withRepo: boolean) => configuration.agents.get(agent)!.renderBody(context(withRepo));

    it('Qwen2.5-Coder: the repository-level format, the current file last; plain FIM without context', () => {
        assert.equal(body('ollama-fim-qwen25coder', true).prompt, '<|repo_name|>shop\n<|file_sep|>src/similar.ts\nconst near = 1;\n<|file_sep|>src/price.ts\n'
            + 'export function price(cents: number): string {\n<|file_sep|>src/math.ts\n<|fim_prefix|>function add(a: number, b: number) {\n    return <|fim_suffix|>;\n}\n<|fim_middle|>');
        assert.equal(body('ollama-fim-qwen25coder', false).prompt, '<|fim_prefix|>function add(a: number, b: number) {\n    return <|fim_suffix|>;\n}\n<|fim_middle|>');
    });

    it('StarCoder2: <repo_name>, <file_sep> per file, the path after <fim_prefix>; plain FIM without context', () => {
        assert.equal(body('ollama-fim-starcoder2', true).prompt, '<repo_name>shop<file_sep>src/similar.ts\nconst near = 1;\n<file_sep>src/price.ts\n'
            + 'export function price(cents: number): string {\n<file_sep><fim_prefix>src/math.ts\nfunction add(a: number, b: number) {\n    return <fim_suffix>;\n}\n<fim_middle>');
        assert.equal(body('ollama-fim-starcoder2', false).prompt, '<fim_prefix>function add(a: number, b: number) {\n    return <fim_suffix>;\n}\n<fim_middle>');
    });

    it('Codestral: prefix files under `+++++ path`, the current file last, a stop at the next header', () => {
        for (const agent of ['codestral-fim', 'mistral-fim']) {
            const withRepo = body(agent, true);
            assert.equal(withRepo.prompt, '+++++ src/similar.ts\nconst near = 1;\n\n+++++ src/price.ts\nexport function price(cents: number): string {\n\n+++++ src/math.ts\n'
                + 'function add(a: number, b: number) {\n    return ');
            assert.equal(withRepo.suffix, ';\n}\n');
            assert.deepEqual(withRepo.stop, ['\n+++++ ']);
            assert.equal(body(agent, false).prompt, 'function add(a: number, b: number) {\n    return ');
        }
    });

    it('llama.cpp /infill: the snippets join the open files in input_extra', () => {
        assert.deepEqual(body('llamacpp-fim', true).input_extra, [
            { filename: 'src/util.ts', text: 'export const one = 1;\n' },
            { filename: 'src/similar.ts', text: 'const near = 1;\n' },
            { filename: 'src/price.ts', text: 'export function price(cents: number): string {\n' }
        ]);
    });

    it('instruct agents: labelled snippets before the code', () => {
        const messages = body('claude-completion', true).messages as Array<{ content: string }>;
        assert.equal(messages[0].content, 'Active file: src/math.ts (typescript)\n\nContext file src/util.ts:\n```\nexport const one = 1;\n```\n\n'
            + 'Similar code in src/similar.ts:\n```\nconst near = 1;\n```\n\nDefinitions from src/price.ts:\n```\nexport function price(cents: number): string {\n```\n\n'
            + 'Complete the code at <cursor>. Reply with only the code to insert at the cursor: no explanation, no code fences, nothing that is already before or after the cursor.\n\n'
            + '<code>function add(a: number, b: number) {\n    return <cursor>;\n}\n</code>');
        const without = body('claude-completion', false).messages as Array<{ content: string }>;
        assert.ok(!/Definitions from|Similar code in/.test(without[0].content));
    });

    it('gathers context only for the completion agents whose template sends it', () => {
        const takes = [...configuration.rosters.completion, 'ollama-fim-starcoder2', 'ollama-fim-codellama', 'ollama-fim-suffix', 'qwen3-coder-fim-chat']
            .filter(name => rendersRepoFiles(configuration.agents.get(name)!));
        assert.deepEqual(takes, ['ollama-fim-qwen25coder', 'llamacpp-fim', 'codestral-fim', 'claude-completion', 'openai-completion', 'gemini-completion', 'deepseek-completion', 'ollama-fim-starcoder2']);
    });
});
