import { IPermissionPrompt, PermissionAnswer, PermissionGrant, PermissionRequest } from '../ports/permission-prompt';

/** The bench CLI's answer: a fixed policy given on the command line. */
export class FixedPermissionPolicy implements IPermissionPrompt {
    constructor(private readonly allowed: ReadonlySet<PermissionGrant>) { }

    async ask(request: PermissionRequest): Promise<PermissionAnswer> {
        if (request.protectedPath !== undefined) {
            return this.allowed.has('protected-write') ? 'allow-once' : 'deny';
        }
        const granted = this.allowed.has(request.permission) || (request.permission === 'write' && this.allowed.has('protected-write'));
        return granted ? 'allow-once' : 'deny';
    }
}
