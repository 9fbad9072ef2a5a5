import type { ToolCallContent } from '@agentclientprotocol/sdk';
import { applyPatch, parsePatch, reversePatch } from 'diff';
import { FileEditRecord } from '../wire/events';
import { redactKnownValues } from '../wire/redaction';

/**
 * The ACP diff of a file edit: the client wants whole texts, the chat keeps a unified diff. The
 * text after the edit is what was written (known to the server, or read back); the text before
 * is that with the diff undone. Undefined when the diff does not fit the text (the file changed
 * meanwhile): the client then gets the result as text only.
 */
export function editDiff(edit: FileEditRecord, after: string): ToolCallContent | undefined {
    const newText = redactKnownValues(after);
    if (edit.created) {
        return { type: 'diff', path: edit.absolutePath, oldText: null, newText };
    }
    const [patch] = parsePatch(edit.diff);
    if (!patch) {
        return undefined;
    }
    const before = applyPatch(after, reversePatch(patch));
    return before === false ? undefined : { type: 'diff', path: edit.absolutePath, oldText: redactKnownValues(before), newText };
}

/**
 * What an edit tool call would write, for the permission question, from its arguments and the
 * file's current text (undefined for a new file): create_file's content, edit_file's replacement.
 * Undefined when it cannot be foreseen (old_text not found): the tool itself will say why.
 */
export function proposedEdit(tool: string, args: Record<string, unknown>, current: string | undefined): { oldText: string | null; newText: string } | undefined {
    if (tool === 'create_file' && typeof args.content === 'string') {
        return { oldText: current ?? null, newText: args.content };
    }
    if (tool === 'edit_file' && current !== undefined && typeof args.old_text === 'string' && args.old_text && typeof args.new_text === 'string') {
        const oldText = args.old_text;
        const newText = args.new_text;
        if (!current.includes(oldText)) {
            return undefined;
        }
        return { oldText: current, newText: args.replace_all === true ? current.split(oldText).join(newText) : current.replace(oldText, () => newText) };
    }
    return undefined;
}
