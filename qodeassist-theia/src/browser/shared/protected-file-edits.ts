import type { FileEditRecord } from '@qodeassist/core';
import { FileEditConflict } from './file-edit-patch';

/** Takes a tool's file edit back or applies it again. */
export interface FileEditPort {
    undo(record: FileEditRecord): Promise<void>;
    reapply(record: FileEditRecord): Promise<void>;
}

export interface ProtectedEditQuestions {
    /** The protected place (configuration or ignore rules, links followed) a write to this absolute path reaches; undefined for an ordinary file. */
    protectedLocation(absolutePath: string): Promise<string | undefined>;
    /** Asks the user whether Undo or Apply may write that protected place; true allows this one write. */
    confirm(protectedPath: string, action: 'undo' | 'reapply'): Promise<boolean>;
}

/**
 * Undo and Apply again from the chat write files like any tool does, so a write to a protected
 * place asks every time: a chat opened from the workspace may hold edit records a repository wrote.
 */
export function askingOnProtected(edits: FileEditPort, questions: ProtectedEditQuestions): FileEditPort {
    const asked = async (record: FileEditRecord, action: 'undo' | 'reapply'): Promise<void> => {
        const protectedPath = await questions.protectedLocation(record.absolutePath);
        if (protectedPath !== undefined && !await questions.confirm(protectedPath, action)) {
            throw new FileEditConflict(`Writing ${protectedPath} (a configuration or ignore file) was not allowed; nothing was changed.`);
        }
    };
    return {
        undo: async record => {
            await asked(record, 'undo');
            await edits.undo(record);
        },
        reapply: async record => {
            await asked(record, 'reapply');
            await edits.reapply(record);
        }
    };
}
