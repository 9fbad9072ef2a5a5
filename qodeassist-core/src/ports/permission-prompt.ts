export type PermissionClass = 'read' | 'write' | 'execute';

export type PermissionAnswer = 'allow-once' | 'allow-chat' | 'deny';

export interface PermissionRequest {
    tool: string;
    permission: PermissionClass;
    /** The exact arguments, shown to the user as they will be used. */
    arguments: Record<string, unknown>;
    /** The chat (or refactor run) asking; "allow for this chat" is remembered per chat. */
    chatId: string;
}

/** Asks the user whether a write or execute tool may run: the IDE shows a prompt, the bench CLI answers from a flag. */
export interface IPermissionPrompt {
    ask(request: PermissionRequest): Promise<PermissionAnswer>;
}

/** The bench CLI's answer: a fixed policy given on the command line. */
export class FixedPermissionPolicy implements IPermissionPrompt {
    constructor(private readonly allowed: ReadonlySet<PermissionClass>) { }

    async ask(request: PermissionRequest): Promise<PermissionAnswer> {
        return this.allowed.has(request.permission) ? 'allow-once' : 'deny';
    }
}
