import { injectable } from '@theia/core/shared/inversify';

/**
 * Which workspace folders the user trusts, as the windows report it from Theia's
 * WorkspaceTrustService. A folder is untrusted until a window says otherwise, so a
 * backend that starts before any window (or an outside MCP client) never loads the
 * project layer of a repository the user has not looked at.
 */
@injectable()
export class WorkspaceTrustRegistry {
    private readonly trusted = new Set<string>();
    private readonly listeners = new Set<(workspacePath: string, trusted: boolean) => void>();

    isTrusted(workspacePath: string | undefined): boolean {
        return workspacePath !== undefined && this.trusted.has(workspacePath);
    }

    /** Records a window's answer; listeners hear of a change only. */
    setTrusted(workspacePath: string, trusted: boolean): void {
        if (this.trusted.has(workspacePath) === trusted) {
            return;
        }
        if (trusted) {
            this.trusted.add(workspacePath);
        } else {
            this.trusted.delete(workspacePath);
        }
        for (const listener of [...this.listeners]) {
            listener(workspacePath, trusted);
        }
    }

    onDidChange(listener: (workspacePath: string, trusted: boolean) => void): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }
}
