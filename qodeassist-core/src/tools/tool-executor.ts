import { IDocumentReader, IDocumentWriter } from '../ports/document-reader';
import { IPermissionPrompt, PermissionClass, PermissionRequest } from '../ports/permission-prompt';
import { CtxTool } from '../prompt/template-context';
import { ToolCall } from '../wire/assistant-turn';
import { CancelledError, untilAborted } from '../wire/error-info';
import { RequestId } from '../wire/events';
import { redactKnownValues } from '../wire/redaction';
import { ToolExecution, ToolExecutor } from '../wire/tool-loop-runner';
import { keptToolImages } from '../wire/tool-result-images';
import { capHead } from './output-cap';
import { AnyTool, toolDefinition, ToolOutcome, WriteQuestion } from './tool';
import { ToolInputError, WorkspaceFiles } from './workspace-files';

/**
 * The backstop for any tool's result, whoever wrote the tool (a skill, an extension): each tool
 * bounds its own answer well below this; past it the rest is cut and counted.
 */
export const MAX_TOOL_RESULT_CHARS = 500_000;

/** Contributes tools to every session: the built-in ToolKit, skills, the MCP hub. */
export type ToolContributor = () => readonly AnyTool[];

/** The one place tools are registered, so chat, refactor and the MCP server all see the same set. */
export class ToolContributorRegistry {
    private readonly contributors: ToolContributor[] = [];

    register(contributor: ToolContributor): () => void {
        this.contributors.push(contributor);
        return () => this.contributors.splice(this.contributors.indexOf(contributor), 1);
    }

    tools(): AnyTool[] {
        const byName = new Map<string, AnyTool>();
        for (const contributor of this.contributors) {
            for (const tool of contributor()) {
                byName.set(tool.name, tool);
            }
        }
        return [...byName.values()];
    }
}

export interface ToolKitOptions {
    files: WorkspaceFiles;
    /** Open editors' text: read_file prefers it to the disk. */
    documents?: IDocumentReader;
    writer?: IDocumentWriter;
    permissions: IPermissionPrompt;
    /** Tools the user turned off. */
    disabled?: ReadonlySet<string>;
    /** Observes each outcome (e.g. file-edit records for the chat). */
    onOutcome?(call: ToolCall, outcome: ToolOutcome): void;
}

/**
 * Runs the model's tool calls for one chat: arguments validated, the permission gate for
 * write and execute tools (allow once / for this chat / deny), disabled tools refused.
 * Every failure comes back as a tool error the model can read; nothing throws but a cancel.
 */
export class ToolKitExecutor implements ToolExecutor {
    private readonly allowedForChat = new Set<string>();

    constructor(private readonly registry: ToolContributorRegistry, private readonly chatId: string, private readonly options: ToolKitOptions) { }

    /** The definitions offered to the model: the enabled tools. */
    definitions(): CtxTool[] {
        return this.enabledTools().map(tool => toolDefinition(tool));
    }

    /** The enabled tools' definitions with their permission class (read, write, execute), for hosts that show or gate them. */
    catalog(): Array<CtxTool & { permission: PermissionClass }> {
        return this.enabledTools().map(tool => ({ ...toolDefinition(tool), permission: tool.permission }));
    }

    async execute(call: ToolCall, context: { requestId: RequestId; signal?: AbortSignal }): Promise<ToolExecution> {
        const raw = await this.run(call, context);
        // A key QodeAssist holds never leaves in a tool's result (a file or a command's output that holds one): not to the model, not to a view.
        const outcome = { ...raw, content: redactKnownValues(raw.content) };
        this.options.onOutcome?.(call, outcome);
        const content = capHead(outcome.content, MAX_TOOL_RESULT_CHARS, 'no tool result is handed over longer than this; ask the tool for less');
        // Image bytes are not text to redact; they are held to the allowlist and the size limits instead.
        const images = keptToolImages(outcome.images);
        return { content, isError: outcome.isError, ...(outcome.fileEdit ? { fileEdit: outcome.fileEdit } : {}), ...(images.length > 0 ? { images } : {}) };
    }

    private enabledTools(): AnyTool[] {
        return this.registry.tools().filter(tool => !this.options.disabled?.has(tool.name));
    }

    /**
     * The protected place a write tool's `path` argument reaches, links followed. A path that does
     * not resolve is not protected here: the tool itself refuses it.
     */
    private writeTargetOf(args: unknown): WriteQuestion {
        const path = (args as { path?: unknown }).path;
        if (typeof path !== 'string') {
            return {};
        }
        try {
            const resolved = this.options.files.resolve(path);
            const protectedPath = this.options.files.protectedLocation(resolved);
            const real = this.options.files.real(resolved).absolute;
            return protectedPath === undefined ? { real } : { real, protectedPath };
        } catch {
            return {};
        }
    }

    private async run(call: ToolCall, context: { requestId: RequestId; signal?: AbortSignal }): Promise<ToolOutcome> {
        const tool = this.registry.tools().find(candidate => candidate.name === call.name);
        if (!tool) {
            return { isError: true, content: `There is no tool named "${call.name}". Available: ${this.enabledTools().map(t => t.name).join(', ')}.` };
        }
        if (this.options.disabled?.has(tool.name)) {
            return { isError: true, content: `The tool "${tool.name}" is turned off by the user.` };
        }
        const parsed = tool.parameters.safeParse(call.arguments);
        if (!parsed.success) {
            const problems = parsed.error.issues.map(issue => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`).join('; ');
            return { isError: true, content: `Invalid arguments for ${tool.name}: ${problems}. Call it again with arguments matching its schema.` };
        }
        // A write to a protected place asks every time, whatever was allowed for this chat.
        const target = tool.permission === 'write' ? this.writeTargetOf(parsed.data) : {};
        const protectedPath = target.protectedPath;
        let asked: WriteQuestion | undefined;
        if (tool.permission !== 'read' && (protectedPath !== undefined || !this.allowedForChat.has(tool.name))) {
            const request: PermissionRequest = {
                tool: tool.name, permission: tool.permission, arguments: call.arguments, chatId: this.chatId, ...(protectedPath !== undefined ? { protectedPath } : {})
            };
            const answer = await untilAborted(this.options.permissions.ask(request), context.signal);
            if (answer === 'deny') {
                return { isError: true, content: `The user denied ${tool.name} with these arguments. Do not retry it unchanged; ask the user or take another approach.` };
            }
            if (answer === 'allow-chat' && protectedPath === undefined) {
                this.allowedForChat.add(tool.name);
            }
            asked = target;
        }
        try {
            return await tool.run(parsed.data, {
                ...context, chatId: this.chatId, files: this.options.files, documents: this.options.documents, writer: this.options.writer, ...(asked ? { asked } : {})
            });
        } catch (error) {
            if (error instanceof CancelledError || context.signal?.aborted) {
                throw new CancelledError();
            }
            const message = error instanceof ToolInputError ? error.message : `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`;
            return { isError: true, content: message };
        }
    }
}
