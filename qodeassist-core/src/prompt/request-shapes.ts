import { z } from 'zod';
import { WireProtocolName } from '../wire/wire-protocols';

const anyObject = z.record(z.string(), z.unknown());
const role = (roles: readonly [string, ...string[]]) => z.enum(roles);

const openAIMessage = z.looseObject({
    role: role(['system', 'developer', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(anyObject), z.null()]).optional(),
    tool_calls: z.array(z.looseObject({ id: z.string(), type: z.literal('function'), function: z.looseObject({ name: z.string(), arguments: z.string() }) })).optional(),
    tool_call_id: z.string().optional()
});

/** The minimum each protocol's request must have; extra fields pass (providers add their own). */
export const REQUEST_SHAPES: Readonly<Record<WireProtocolName, z.ZodType>> = {
    'openai-chat': z.looseObject({ model: z.string().min(1), stream: z.literal(true), messages: z.array(openAIMessage).min(1), tools: z.array(z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string(), parameters: anyObject }) })).optional() }),
    'openai-responses': z.looseObject({ model: z.string().min(1), stream: z.literal(true), input: z.union([z.string(), z.array(anyObject).min(1)]), tools: z.array(z.looseObject({ type: z.string(), name: z.string() })).optional() }),
    'anthropic-messages': z.looseObject({
        model: z.string().min(1), max_tokens: z.number().int().positive(), stream: z.literal(true),
        system: z.union([z.string(), z.array(anyObject)]).optional(),
        messages: z.array(z.looseObject({ role: role(['user', 'assistant']), content: z.union([z.string(), z.array(z.looseObject({ type: z.string() })).min(1)]) })).min(1),
        tools: z.array(z.looseObject({ name: z.string(), input_schema: anyObject })).optional()
    }),
    'gemini': z.looseObject({
        contents: z.array(z.looseObject({ role: role(['user', 'model']), parts: z.array(anyObject).min(1) })).min(1),
        systemInstruction: z.looseObject({ parts: z.array(anyObject) }).optional(),
        tools: z.array(anyObject).optional()
    }),
    'ollama-chat': z.looseObject({ model: z.string().min(1), stream: z.literal(true), messages: z.array(z.looseObject({ role: role(['system', 'user', 'assistant', 'tool']), content: z.string() })).min(1) }),
    'ollama-generate': z.looseObject({ model: z.string().min(1), stream: z.literal(true), prompt: z.string() }),
    'mistral-fim': z.looseObject({ model: z.string().min(1), stream: z.literal(true), prompt: z.string() }),
    // /infill takes the code around the cursor; /completion (same stream) a raw prompt.
    'llamacpp-infill': z.union([
        z.looseObject({ stream: z.literal(true), input_prefix: z.string(), input_suffix: z.string() }),
        z.looseObject({ stream: z.literal(true), prompt: z.string() })
    ]),
    'theia-language-model': z.looseObject({
        model: z.string().min(1),
        messages: z.array(z.looseObject({ actor: role(['system', 'user', 'ai']), type: role(['text', 'thinking', 'tool_use', 'tool_result', 'image']) })).min(1),
        tools: z.array(z.looseObject({ name: z.string(), parameters: anyObject })).optional()
    })
};
