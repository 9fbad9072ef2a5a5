import * as assert from 'node:assert/strict';
import { ResolvedAgent } from '../../../agents/configuration-loader';
import { TemplateContext } from '../../../prompt/template-context';
import { completionContextFor, contextBudgetFor, DEFAULT_CONTEXT_BUDGET, describeContext, rendersRepoFiles } from './cross-file-context';
import { CompletionContextRetriever } from './context-retriever';

/** An agent whose body is what `render` makes of the context, with its file's table. */
function agent(render: (ctx: TemplateContext) => Record<string, unknown>, table: Record<string, unknown> = {}): ResolvedAgent {
    return { name: 'a', renderBody: render, profile: { table } } as unknown as ResolvedAgent;
}

describe('cross-file context for an agent', () => {
    it('is gathered only for templates that send ctx.repo_files (found by rendering once)', () => {
        let renders = 0;
        const repo = agent(ctx => (renders++, { prompt: (ctx.repo_files ?? []).map(file => file.content).join('') + ctx.prefix }));
        const plain = agent(ctx => ({ prompt: ctx.prefix }));
        const broken = agent(() => {
            throw new Error('bad template');
        });
        assert.deepEqual([rendersRepoFiles(repo), rendersRepoFiles(repo), rendersRepoFiles(plain), rendersRepoFiles(broken)], [true, true, false, false]);
        assert.equal(renders, 1, 'decided once per agent');
    });

    it('takes the agent\'s completion_context_tokens over the setting, the setting over the default', () => {
        const plain = agent(ctx => ({ prompt: ctx.prefix }));
        assert.equal(contextBudgetFor(agent(ctx => ({ prompt: ctx.prefix }), { completion_context_tokens: 256 }), 2048), 256);
        assert.equal(contextBudgetFor(agent(ctx => ({ prompt: ctx.prefix }), { completion_context_tokens: 0 }), 2048), 0);
        assert.equal(contextBudgetFor(plain, 2048), 2048);
        assert.equal(contextBudgetFor(plain, undefined), DEFAULT_CONTEXT_BUDGET);
    });

    it('asks the retriever nothing for an agent that would not send it', async () => {
        const retriever = new CompletionContextRetriever(text => text.length);
        let asked = 0;
        retriever.retrieve = async () => {
            asked++;
            return { repoFiles: [], records: [], elapsedMs: 0, duplicates: 0, overBudget: 0 };
        };
        const request = { file: '/w/a.ts', language: 'typescript', text: '', offset: 0 };
        const around = { prefix: '', suffix: '' };
        assert.equal(await completionContextFor(retriever, agent(ctx => ({ prompt: ctx.prefix })), request, around, 1024), undefined);
        const repo = agent(ctx => ({ prompt: JSON.stringify(ctx.repo_files ?? []) }));
        assert.equal(await completionContextFor(retriever, repo, request, around, 0), undefined, 'a budget of 0 turns it off');
        assert.deepEqual(await completionContextFor(retriever, repo, { ...request, project: 'shop' }, around, 1024), { repoFiles: [], repoName: 'shop', records: [], elapsedMs: 0 });
        assert.equal(asked, 1);
    });

    it('describes the context for the completion log', () => {
        assert.equal(describeContext([{ source: 'definition', path: 'src/a.ts', symbol: 'parse', tokens: 40 }, { source: 'similar', path: 'src/b.ts', tokens: 120 }]),
            'definition src/a.ts (parse) ~40, similar src/b.ts ~120');
    });
});
