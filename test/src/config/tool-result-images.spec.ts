import * as assert from 'node:assert/strict';
import { ContentLoader, ContextAssembler, HistoryMessage, TokenEstimator } from '@qodeassist/core';
import { bundledConfiguration } from './golden-bodies';

/** A real 1×1 PNG: what the tool returned. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';
const DESCRIBED = 'Captured the page.\n[image image/png, 69 bytes]';

/** A tool round whose result carries an image, then the next question: the continuation every protocol must render. */
const HISTORY: HistoryMessage[] = [
    { role: 'user', blocks: [{ type: 'text', text: 'What does the page look like?' }] },
    { role: 'assistant', blocks: [{ type: 'tool_use', id: 'call_1', name: 'mcp_web_screenshot', input: { url: 'http://localhost:3000' } }] },
    { role: 'user', blocks: [{ type: 'tool_result', toolUseId: 'call_1', name: 'mcp_web_screenshot', content: DESCRIBED, isError: false, images: [{ mediaType: 'image/png', data: PNG }] }] }
];

type Body = Record<string, unknown>;
type Item = Record<string, unknown>;

/** Where each protocol's continuation must carry the image, asserted on the rendered body. */
const PLACEMENTS: Array<{ agent: string; where: string; check(body: Body): void }> = [
    {
        agent: 'claude-chat', where: 'tool_result content: a text block, then a base64 image block',
        check: body => {
            const results = (body.messages as Item[]).flatMap(message => message.content as Item[]).filter(block => block.type === 'tool_result');
            assert.deepEqual(results.map(result => result.content), [[
                { type: 'text', text: DESCRIBED },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }
            ]]);
        }
    },
    {
        agent: 'openai-chat', where: 'the tool message keeps the text; a user message right after it holds the image as a data URL',
        check: body => {
            const messages = body.messages as Item[];
            const tool = messages.findIndex(message => message.role === 'tool');
            assert.deepEqual(messages[tool], { role: 'tool', tool_call_id: 'call_1', content: DESCRIBED });
            assert.deepEqual(messages[tool + 1], {
                role: 'user', content: [
                    { type: 'text', text: 'Images returned by the tool mcp_web_screenshot (call call_1):' },
                    { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }
                ]
            });
        }
    },
    {
        agent: 'responses-chat', where: 'function_call_output output: input_text, then input_image',
        check: body => {
            const output = (body.input as Item[]).find(item => item.type === 'function_call_output');
            assert.deepEqual(output, {
                type: 'function_call_output', call_id: 'call_1',
                output: [{ type: 'input_text', text: DESCRIBED }, { type: 'input_image', image_url: `data:image/png;base64,${PNG}` }]
            });
        }
    },
    {
        agent: 'gemini-chat', where: 'the functionResponse part, then an inlineData part in the same turn',
        check: body => {
            const turn = (body.contents as Item[]).find(content => (content.parts as Item[]).some(part => 'functionResponse' in part));
            assert.deepEqual(turn, {
                role: 'user', parts: [
                    { functionResponse: { name: 'mcp_web_screenshot', response: { result: DESCRIBED } } },
                    { inlineData: { mimeType: 'image/png', data: PNG } }
                ]
            });
        }
    },
    {
        agent: 'ollama-chat', where: 'the tool message\'s images, base64 without a data: prefix',
        check: body => {
            const tool = (body.messages as Item[]).find(message => message.role === 'tool');
            assert.deepEqual(tool, { role: 'tool', content: DESCRIBED, tool_name: 'mcp_web_screenshot', images: [PNG] });
        }
    }
];

describe('images a tool returned, in every protocol\'s continuation', () => {
    const configuration = bundledConfiguration();
    const render = async (name: string) => {
        const agent = configuration.agents.get(name)!;
        const { ctx } = await new ContextAssembler(new TokenEstimator(), new ContentLoader()).assemble({
            layers: [{ name: 'agent.system', text: 'You help.' }], history: HISTORY, pinned: [], tools: [],
            budget: { contextWindow: 100_000, maxOutputTokens: 1_000 }, estimatorKey: name, imagelessAgent: agent.images ? undefined : name
        });
        return { agent, body: agent.renderBody(ctx) };
    };

    for (const placement of PLACEMENTS) {
        it(`${placement.agent}: ${placement.where}`, async () => {
            const { agent, body } = await render(placement.agent);
            assert.equal(agent.images, true);
            placement.check(body);
            assert.equal(JSON.stringify(body).split(PNG).length - 1, 1, 'the bytes go once');
        });
    }

    for (const name of ['deepseek-chat', 'llamacpp-chat']) {
        it(`${name} takes no images: its continuation has the description, never the bytes`, async () => {
            const { agent, body } = await render(name);
            assert.equal(agent.images, false);
            const json = JSON.stringify(body);
            assert.ok(!json.includes(PNG), 'no image bytes');
            assert.ok(json.includes(JSON.stringify(DESCRIBED).slice(1, -1)), 'the description goes');
        });
    }
});
