import { RequestError } from '@agentclientprotocol/sdk';
import { createTwoFilesPatch } from 'diff';
import { mkdir, open, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createFileAtomically, replaceFileAtomically } from '../tools/workspace-file-write';
import { readFileLineWindow } from '../tools/line-window';
import { ResolvedPath, ToolInputError } from '../tools/workspace-files';
import { FileEditRecord } from '../wire/events';
import { AcpHost } from './acp-host';

/** JSON-RPC codes the agent gets: the path is not allowed, or there is no such file. */
const NOT_ALLOWED = -32602;
const NOT_FOUND = -32002;

/** Texts longer than this are not diffed (the record says how the size changed). */
const MAX_DIFF_INPUT_CHARS = 256 * 1024;

export interface ReadRequest {
    path: string;
    /** 1-based first line. */
    line?: number | null;
    /** Lines to return. */
    limit?: number | null;
}

/** Whether the user lets a write to a protected place happen (asked every time). */
export type ProtectedWriteApproval = (protectedPath: string, edit: FileEditRecord, texts: { before?: string; after: string }) => Promise<boolean>;

/**
 * `fs/read_text_file` and `fs/write_text_file` for an external agent: confined to the host's
 * workspace roots with links resolved and ignore rules applied, as the file tools are. Reads see
 * an open editor's unsaved text; writes go through the host's writer (an undoable editor edit),
 * and a write to a configuration or ignore file waits for the user's answer every time.
 * Refusals reach the agent as JSON-RPC errors whose message says why.
 */
export class AcpFileAccess {
    constructor(private readonly host: AcpHost, private readonly maxFileBytes: number) { }

    async read(request: ReadRequest): Promise<string> {
        const path = this.confined(request.path);
        const start = positive(request.line) ?? 1;
        const limit = positive(request.limit);
        const editorText = await this.host.documents?.readOpen(path.absolute);
        if (editorText !== undefined) {
            return this.bounded(sliceLines(editorText, start, limit), path);
        }
        const real = this.host.files.real(path).absolute;
        const size = await this.fileSize(real, path);
        if (size > this.maxFileBytes) {
            if (limit === undefined) {
                throw new RequestError(NOT_ALLOWED, `"${path.relative}" is ${size} bytes, more than the ${this.maxFileBytes} bytes one read returns. Read it in parts with line and limit.`);
            }
            await this.assertText(real, path);
            const page = await readFileLineWindow(real, { start, end: start + limit - 1, maxLines: limit, maxBytes: this.maxFileBytes, countLines: false });
            return page.text;
        }
        await this.assertText(real, path);
        return this.bounded(sliceLines(await readFile(real, 'utf8'), start, limit), path);
    }

    /** Writes the file and returns the record of the change (its diff) for the chat. */
    async write(pathInput: string, content: string, approveProtected: ProtectedWriteApproval): Promise<FileEditRecord> {
        const path = this.confined(pathInput);
        if (Buffer.byteLength(content, 'utf8') > this.maxFileBytes) {
            throw new RequestError(NOT_ALLOWED, `The content for "${path.relative}" is more than ${this.maxFileBytes} bytes, the most one write accepts. Nothing was written.`);
        }
        const before = await this.currentText(path);
        const edit: FileEditRecord = { path: path.relative, absolutePath: path.absolute, created: before === undefined, diff: diffOf(path.relative, before, content) };
        const protectedPath = this.host.files.protectedLocation(path);
        if (protectedPath !== undefined && !await approveProtected(protectedPath, edit, { before, after: content })) {
            throw new RequestError(NOT_ALLOWED, `The user did not allow writing "${protectedPath}" (a configuration or ignore file, asked every time). Nothing was written; do not retry it unchanged.`);
        }
        try {
            await mkdir(dirname(this.host.files.real(path).absolute), { recursive: true });
            // Checked again just before writing: the prompt gave time enough to swap a link.
            const target = this.host.files.recheck(path);
            if (this.host.writer) {
                await this.host.writer.write(target, content, { created: before === undefined });
            } else if (before === undefined) {
                await createFileAtomically(target, content);
            } else {
                await replaceFileAtomically(target, content);
            }
        } catch (error) {
            throw asRequestError(error);
        }
        return edit;
    }

    /** The path resolved and allowed, or a JSON-RPC error the agent can read. */
    private confined(input: string): ResolvedPath {
        try {
            const path = this.host.files.resolve(input);
            this.host.files.assertNotIgnored(path);
            return path;
        } catch (error) {
            throw asRequestError(error);
        }
    }

    private async currentText(path: ResolvedPath): Promise<string | undefined> {
        const editorText = await this.host.documents?.readOpen(path.absolute);
        if (editorText !== undefined) {
            return editorText;
        }
        const real = this.host.files.real(path).absolute;
        const info = await stat(real).catch(() => undefined);
        if (!info) {
            return undefined;
        }
        if (!info.isFile()) {
            throw new RequestError(NOT_ALLOWED, `"${path.relative}" is not a regular file; only files can be written.`);
        }
        if (info.size > this.maxFileBytes) {
            throw new RequestError(NOT_ALLOWED, `"${path.relative}" is ${info.size} bytes, larger than the ${this.maxFileBytes} bytes an agent may replace. Nothing was written.`);
        }
        return readFile(real, 'utf8');
    }

    private async fileSize(real: string, path: ResolvedPath): Promise<number> {
        const info = await stat(real).catch(() => undefined);
        if (!info) {
            throw new RequestError(NOT_FOUND, `"${path.relative}" does not exist.`, { uri: pathToFileURL(path.absolute).href });
        }
        if (!info.isFile()) {
            throw new RequestError(NOT_ALLOWED, `"${path.relative}" is ${info.isDirectory() ? 'a folder' : 'not a regular file'}; only text files can be read.`);
        }
        return info.size;
    }

    private async assertText(real: string, path: ResolvedPath): Promise<void> {
        const handle = await open(real, 'r');
        try {
            const head = Buffer.alloc(8_000);
            const { bytesRead } = await handle.read(head, 0, head.length, 0);
            if (head.subarray(0, bytesRead).includes(0)) {
                throw new RequestError(NOT_ALLOWED, `"${path.relative}" is a binary file; only text files can be read.`);
            }
        } finally {
            await handle.close();
        }
    }

    private bounded(text: string, path: ResolvedPath): string {
        if (Buffer.byteLength(text, 'utf8') > this.maxFileBytes) {
            throw new RequestError(NOT_ALLOWED, `The text asked for from "${path.relative}" is more than ${this.maxFileBytes} bytes. Read it in parts with line and limit.`);
        }
        return text;
    }
}

function positive(value: number | null | undefined): number | undefined {
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** Lines `start`…`start + limit - 1` as `split('\n')` counts them (all from `start` without a limit). */
function sliceLines(text: string, start: number, limit: number | undefined): string {
    if (start === 1 && limit === undefined) {
        return text;
    }
    const lines = text.split('\n');
    return lines.slice(start - 1, limit === undefined ? undefined : start - 1 + limit).join('\n');
}

function diffOf(path: string, before: string | undefined, after: string): string {
    if ((before?.length ?? 0) > MAX_DIFF_INPUT_CHARS || after.length > MAX_DIFF_INPUT_CHARS) {
        return `${before === undefined ? 'created' : `changed from ${before.length} characters`} to ${after.length} characters (too large to show as a diff)`;
    }
    return createTwoFilesPatch(before === undefined ? '/dev/null' : `a/${path}`, `b/${path}`, before ?? '', after, undefined, undefined, { context: 3 }).replace(/^=+\n/, '');
}

/** Refusals of the confinement (and file-system failures) as errors the agent reads. */
function asRequestError(error: unknown): RequestError {
    if (error instanceof RequestError) {
        return error;
    }
    if (error instanceof ToolInputError) {
        return new RequestError(NOT_ALLOWED, error.message);
    }
    return new RequestError(-32603, error instanceof Error ? error.message : String(error));
}
