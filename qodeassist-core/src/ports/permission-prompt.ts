export type PermissionClass = 'read' | 'write' | 'execute';

export type PermissionAnswer = 'allow-once' | 'allow-chat' | 'deny';

export interface PermissionRequest {
    tool: string;
    permission: PermissionClass;
    /** The exact arguments, shown to the user as they will be used. */
    arguments: Record<string, unknown>;
    /** The chat (or refactor run) asking; "allow for this chat" is remembered per chat. */
    chatId: string;
    /**
     * Set when a write reaches a protected place (configuration or ignore rules, also as a link's
     * target), e.g. ".vscode/tasks.json": it is asked every time, never allowed for a whole chat.
     */
    protectedPath?: string;
}

/** What the bench CLI's --allow grants: a permission class, or writes to protected places too (implies write). */
export type PermissionGrant = PermissionClass | 'protected-write';

/** Asks the user whether a write or execute tool may run: the IDE shows a prompt, the bench CLI answers from a flag. */
export interface IPermissionPrompt {
    ask(request: PermissionRequest): Promise<PermissionAnswer>;
}
