/** Small OpenAI Chat recordings built from data, for scripted tool runs (the protocol fixtures stay the recorded ground truth). */
function chunk(delta: object, finish: string | null = null): string {
    return `data: ${JSON.stringify({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 1763790000, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

const usage = (prompt: number, completion: number) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion } })}\n\n`;

/** `promptTokens`: what the fake reports as the request's size (scripts that exercise the budget report a realistic one). */
export function openAIToolCallsRecording(calls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>, promptTokens = 100): string {
    return chunk({ role: 'assistant', content: null })
        + calls.map((call, index) => chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } }] })).join('')
        + chunk({}, 'tool_calls') + usage(promptTokens, 20) + 'data: [DONE]\n\n';
}

export function openAITextRecording(text: string, promptTokens = 100): string {
    return chunk({ role: 'assistant', content: '' }) + chunk({ content: text }) + chunk({}, 'stop') + usage(promptTokens, 10) + 'data: [DONE]\n\n';
}

/** A long OpenAI Chat answer streamed in the given pieces, one SSE record each (for rendering benchmarks). */
export function openAITextStreamRecording(pieces: readonly string[]): string {
    return chunk({ role: 'assistant', content: '' }) + pieces.map(piece => chunk({ content: piece })).join('') + chunk({}, 'stop')
        + usage(100, pieces.length) + 'data: [DONE]\n\n';
}

/** An OpenAI Chat answer that reasons first (DeepSeek-style reasoning_content), then answers. */
export function openAIReasoningRecording(thinking: string, text: string): string {
    return chunk({ role: 'assistant', content: '' }) + chunk({ reasoning_content: thinking }) + chunk({ content: text }) + chunk({}, 'stop')
        + usage(100, 30) + 'data: [DONE]\n\n';
}

/** An Ollama /api/generate (FIM) answer streamed in the given pieces, one NDJSON line each. */
export function ollamaGenerateRecording(pieces: readonly string[]): string {
    const line = (fields: object) => `${JSON.stringify({ model: 'fake-model', created_at: '2026-11-22T10:00:00.000000Z', ...fields })}\n`;
    return pieces.map(response => line({ response, done: false })).join('')
        + line({ response: '', done: true, done_reason: 'stop', prompt_eval_count: 64, eval_count: pieces.length });
}

/** An Ollama /api/chat answer streamed in the given pieces, one NDJSON line each. */
export function ollamaChatRecording(pieces: readonly string[]): string {
    const line = (fields: object) => `${JSON.stringify({ model: 'fake-model', created_at: '2026-11-22T10:00:00.000000Z', ...fields })}\n`;
    return pieces.map(content => line({ message: { role: 'assistant', content }, done: false })).join('')
        + line({ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 64, eval_count: pieces.length });
}
