import { z } from 'zod';
import { CLIENT_APIS } from '../wire/client-apis';
import { PricingTableSchema } from './pricing';

export const CURRENT_SCHEMA_VERSION = 1;

const name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'use letters, digits, "-", "_" and "."');

/** Seconds `[launch]` waits for a started server by default (`start_timeout`). */
export const DEFAULT_START_TIMEOUT_SECONDS = 60;

/**
 * `[launch]`: how QodeAssist starts a local server that is not running when a request needs it.
 * Honoured in bundled and user providers only: a repository's provider file never starts a program.
 */
export const LaunchSchema = z.strictObject({
    /** A program name looked up on PATH outside the workspace, or an absolute path. */
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    /** Where it runs; relative to the user's home, which is also the default. */
    cwd: z.string().optional(),
    /** Added to the scrubbed environment the server gets (keys never pass through otherwise). */
    env: z.record(z.string(), z.string()).optional(),
    /** Ready once this answers 2xx: a path under the provider's URL or a URL of its origin. Default: the provider's model listing. */
    ready_url: z.string().min(1).optional(),
    start_timeout: z.number({ error: '[launch] start_timeout must be a number of seconds' })
        .positive({ error: '[launch] start_timeout must be more than 0 seconds' }).optional()
});

export type ProviderLaunch = z.infer<typeof LaunchSchema>;

export const ProviderInstanceSchema = z.strictObject({
    schema_version: z.number().int(),
    name,
    client_api: z.enum(CLIENT_APIS),
    url: z.url().optional(),
    api_key_ref: z.string().min(1).optional(),
    /** false: the provider and every agent on it are left out (rosters included), with a notice. */
    enabled: z.boolean().optional(),
    description: z.string().optional(),
    launch: LaunchSchema.optional(),
    /** Prices per model name (`[pricing."<model>"]`): the chat shows what a turn and a chat cost; no entry, no figure. */
    pricing: PricingTableSchema.optional()
});

export type ProviderInstance = z.infer<typeof ProviderInstanceSchema>;

export const MatchSchema = z.strictObject({
    file: z.array(z.string()).optional(),
    path: z.array(z.string()).optional(),
    project: z.array(z.string()).optional()
});

const seconds = (key: string) => z.number({ error: `[limits] ${key} must be a number of seconds` })
    .positive({ error: `[limits] ${key} must be more than 0 seconds` });

const bytes = (key: string) => z.number({ error: `[limits] ${key} must be a whole number of bytes` })
    .int({ error: `[limits] ${key} must be a whole number of bytes` })
    .positive({ error: `[limits] ${key} must be 1 or more bytes` });

/** `[limits]`: how long a request may wait, how much the provider may send back and how many tool rounds it may run; each key overrides the built-in default. */
export const LimitsSchema = z.strictObject({
    connect: seconds('connect').optional(),
    idle: seconds('idle').optional(),
    total: seconds('total').optional(),
    max_tool_rounds: z.number({ error: '[limits] max_tool_rounds must be a whole number of rounds' })
        .int({ error: '[limits] max_tool_rounds must be a whole number of rounds' })
        .positive({ error: '[limits] max_tool_rounds must be 1 or more' }).optional(),
    max_record_bytes: bytes('max_record_bytes').optional(),
    max_answer_bytes: bytes('max_answer_bytes').optional()
});


/** An agent file as written: everything optional, because `extends` fills the gaps. */
export const AgentFileSchema = z.strictObject({
    schema_version: z.number().int(),
    name,
    description: z.string().optional(),
    extends: z.string().optional(),
    abstract: z.boolean().optional(),
    /** Pickers that offer this agent besides its rosters' (e.g. ["chat"] for a user's own chat agent). */
    pipelines: z.array(z.enum(['completion', 'chat', 'compression', 'refactor', 'next_edit', 'next-edit'])).optional(),
    provider_instance: z.string().optional(),
    model: z.string().optional(),
    endpoint: z.string().optional(),
    enable_tools: z.boolean().optional(),
    enable_thinking: z.boolean().optional(),
    /**
     * Whether the chat may send this agent images. Default: whether its [body] renders image blocks;
     * false also for a template that renders them (a model without vision).
     */
    images: z.boolean({ error: 'images must be true or false (whether the model takes images); leave it out to follow the [body] template' }).optional(),
    context_window: z.number().int().positive().optional(),
    /** Tokens of cross-file context a completion agent gets (definitions, recent edits, similar code); wins over qodeassist.completion.contextTokens. */
    completion_context_tokens: z.number({ error: 'completion_context_tokens must be a whole number of tokens (0: no cross-file context)' })
        .int({ error: 'completion_context_tokens must be a whole number of tokens (0: no cross-file context)' })
        .min(0, { error: 'completion_context_tokens must be 0 or more (0: no cross-file context)' }).optional(),
    system_prompt: z.string().optional(),
    match: MatchSchema.optional(),
    limits: LimitsSchema.optional(),
    /** Prices per model name; an entry here wins over the provider's for the same model. */
    pricing: PricingTableSchema.optional(),
    body: z.record(z.string(), z.unknown()).optional()
});

export type AgentFile = z.infer<typeof AgentFileSchema>;

/** What a concrete agent must have once `extends` is resolved. */
export const ConcreteAgentSchema = AgentFileSchema.extend({
    provider_instance: z.string(),
    model: z.string(),
    endpoint: z.string(),
    context_window: z.number().int().positive(),
    body: z.record(z.string(), z.unknown())
});

export const PIPELINES = ['completion', 'chat', 'compression', 'refactor', 'next_edit'] as const;
export type Pipeline = typeof PIPELINES[number];

const RosterEntrySchema = z.strictObject({ agents: z.array(z.string()) });

export const RostersFileSchema = z.strictObject({
    schema_version: z.number().int(),
    completion: RosterEntrySchema.optional(),
    chat: RosterEntrySchema.optional(),
    compression: RosterEntrySchema.optional(),
    refactor: RosterEntrySchema.optional(),
    /** Next edit suggestions (agents with `pipelines = ["next-edit"]`). */
    next_edit: RosterEntrySchema.optional()
});

export const RoleSchema = z.strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'use lowercase letters, digits, "-" and "_"'),
    name: z.string().min(1),
    description: z.string(),
    systemPrompt: z.string().min(1)
});

export type Role = z.infer<typeof RoleSchema>;

export const AgentModelsSchema = z.record(z.string(), z.string().min(1));

/** The keys a strict object schema knows, for "did you mean". */
export function knownKeys(schema: z.ZodObject): string[] {
    return Object.keys(schema.shape);
}
