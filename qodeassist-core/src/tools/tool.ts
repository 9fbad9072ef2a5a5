import { z } from 'zod';
import { IDocumentReader, IDocumentWriter } from '../ports/document-reader';
import { PermissionClass } from '../ports/permission-prompt';
import { IProjectScanner } from '../ports/project-scanner';
import { CtxTool } from '../prompt/template-context';
import { FileEditRecord, RequestId } from '../wire/events';
import { ToolResultImage } from '../wire/tool-result-images';
import { WorkspaceFiles } from './workspace-files';

/** What a tool gets besides its arguments. */
export interface ToolContext {
    requestId: RequestId;
    chatId: string;
    signal?: AbortSignal;
    files: WorkspaceFiles;
    /** Open editors' text, unsaved changes included; absent where there are no editors. */
    documents?: IDocumentReader;
    /** Writes files through the IDE's editors (undo, dirty state); straight to disk when absent. */
    writer?: IDocumentWriter;
    /** Enumerates project files; the file-system walk when absent. */
    scanner?: IProjectScanner;
    /**
     * What the user was asked about for this call, when a question was asked: the real path the
     * write would reach then and the protected place it named. A write tool checks the path it
     * really writes against it (assertWriteAsAsked); without it, a protected place is refused.
     */
    asked?: WriteQuestion;
}

/** The write the user answered: the real target then, and the protected place the question named. */
export interface WriteQuestion {
    real?: string;
    protectedPath?: string;
}

/**
 * What a tool returns: text the model reads, and for edits the record the chat can show, apply and undo.
 * `images` go to an agent that takes images besides the text, which describes each of them for any other.
 */
export interface ToolOutcome {
    content: string;
    isError?: boolean;
    fileEdit?: FileEditRecord;
    images?: ToolResultImage[];
}

export interface Tool<Args = Record<string, unknown>> {
    name: string;
    description: string;
    permission: PermissionClass;
    /** Validated before the tool runs: a wrong call becomes an error the model can read. */
    parameters: z.ZodType<Args>;
    /** The JSON Schema offered to the model when it is not derived from `parameters` (a remote MCP tool's own schema). */
    inputSchema?: Record<string, unknown>;
    run(args: Args, context: ToolContext): Promise<ToolOutcome>;
}

/**
 * A tool of any argument type, for heterogeneous lists. Safe because a tool's arguments are
 * always validated by its own schema before `run` sees them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>;

/** JSON Schemas already derived, by parameter schema: deriving one costs more than the rest of a request's preparation. */
const derivedSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

function jsonSchemaOf(parameters: z.ZodType): Record<string, unknown> {
    let schema = derivedSchemas.get(parameters);
    if (!schema) {
        schema = { ...z.toJSONSchema(parameters) as Record<string, unknown> };
        delete schema.$schema;
        derivedSchemas.set(parameters, schema);
    }
    return schema;
}

/** The JSON Schema of a tool's parameters, as every protocol's tool definition wants it. */
export function toolDefinition(tool: AnyTool): CtxTool {
    const schema = { ...(tool.inputSchema ?? jsonSchemaOf(tool.parameters as z.ZodType)) };
    delete schema.$schema;
    return { name: tool.name, description: tool.description, parameters: schema };
}

/** Declares a tool with its argument type inferred from the zod schema. */
export function defineTool<S extends z.ZodType>(tool: {
    name: string; description: string; permission: PermissionClass; parameters: S;
    run(args: z.infer<S>, context: ToolContext): Promise<ToolOutcome>;
}): Tool<z.infer<S>> {
    return tool as Tool<z.infer<S>>;
}
