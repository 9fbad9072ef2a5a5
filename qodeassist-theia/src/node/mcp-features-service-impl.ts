import { formProblem, McpElicitationAnswer, McpElicitationPrompt, McpElicitationRequest } from '@qodeassist/core';
import { inject, injectable } from '@theia/core/shared/inversify';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import {
    McpCatalog, McpContentPart, McpFormField, McpFormValue, McpPromptResult, QodeAssistMcpFeaturesClient, QodeAssistMcpFeaturesService
} from '../common/mcp-features-protocol';
import { McpHubs } from './mcp-service-impl';

interface FeaturesWindow {
    client: QodeAssistMcpFeaturesClient;
    workspace: string | undefined;
}

/**
 * Where the hubs' servers ask their questions, for the whole backend: the newest window showing
 * the hub's workspace (each window says which through `watch`). With no such window, or when the
 * window goes while asking, the answer is cancel; when the question is withdrawn (the turn was
 * stopped), the window is told and its form goes away.
 */
@injectable()
export class McpElicitationRouter {
    private readonly windows: FeaturesWindow[] = [];

    add(window: FeaturesWindow): () => void {
        this.windows.push(window);
        return () => {
            const index = this.windows.indexOf(window);
            if (index >= 0) {
                this.windows.splice(index, 1);
            }
        };
    }

    /** The prompt a workspace's hub asks through. */
    promptFor(workspace: string | undefined): McpElicitationPrompt {
        return { ask: (request, signal) => this.ask(workspace, request, signal) };
    }

    private async ask(workspace: string | undefined, request: McpElicitationRequest, signal: AbortSignal): Promise<McpElicitationAnswer> {
        const key = workspace === undefined ? undefined : resolve(workspace);
        const window = [...this.windows].reverse().find(candidate => (candidate.workspace === undefined ? undefined : resolve(candidate.workspace)) === key);
        if (!window) {
            return { action: 'cancel' };
        }
        const id = randomUUID();
        const withdraw = () => window.client.withdrawMcpElicitation(id);
        signal.addEventListener('abort', withdraw, { once: true });
        try {
            return await window.client.requestMcpElicitation(id, request);
        } catch {
            return { action: 'cancel' };
        } finally {
            signal.removeEventListener('abort', withdraw);
        }
    }
}

/** One window's use of the workspace's MCP resources, prompts, roots and questions. */
@injectable()
export class QodeAssistMcpFeaturesServiceImpl implements QodeAssistMcpFeaturesService {
    private window: FeaturesWindow | undefined;
    private stop: (() => void) | undefined;

    constructor(
        @inject(McpHubs) private readonly hubs: McpHubs,
        @inject(McpElicitationRouter) private readonly router: McpElicitationRouter
    ) { }

    setClient(client: QodeAssistMcpFeaturesClient | undefined): void {
        this.stop?.();
        this.window = client ? { client, workspace: undefined } : undefined;
        this.stop = this.window ? this.router.add(this.window) : undefined;
    }

    async watch(workspacePath: string | undefined, folders: string[]): Promise<void> {
        if (this.window) {
            this.window.workspace = workspacePath;
        }
        const hub = this.hubs.hubFor(workspacePath);
        hub.features.setElicitationPrompt(this.router.promptFor(workspacePath));
        await hub.features.setRoots(folders.length > 0 ? folders : workspacePath ? [workspacePath] : []);
    }

    async catalog(workspacePath: string | undefined): Promise<McpCatalog> {
        return this.hubs.hubFor(workspacePath).features.catalog();
    }

    readResource(workspacePath: string | undefined, server: string, uri: string): Promise<McpContentPart[]> {
        return this.hubs.hubFor(workspacePath).features.readResource(server, uri);
    }

    readTemplate(workspacePath: string | undefined, server: string, template: string, values: Record<string, string>): Promise<McpContentPart[]> {
        return this.hubs.hubFor(workspacePath).features.readTemplate(server, template, values);
    }

    getPrompt(workspacePath: string | undefined, server: string, prompt: string, values: Record<string, string>): Promise<McpPromptResult> {
        return this.hubs.hubFor(workspacePath).features.getPrompt(server, prompt, values);
    }

    completePromptArgument(workspacePath: string | undefined, server: string, prompt: string, argument: string, value: string, values: Record<string, string>): Promise<string[]> {
        return this.hubs.hubFor(workspacePath).features.completePromptArgument(server, prompt, argument, value, values);
    }

    async formProblem(fields: McpFormField[], values: Record<string, McpFormValue>): Promise<string | undefined> {
        return formProblem(fields, values);
    }

    dispose(): void {
        this.stop?.();
        this.stop = undefined;
        this.window = undefined;
    }
}
