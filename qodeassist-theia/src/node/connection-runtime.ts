import { ProviderLauncher, QodeAssistRuntime, watchKeyFiles, WritableSecretsStore } from '@qodeassist/core';
import { interfaces } from '@theia/core/shared/inversify';
import { QodeAssistSecretsStore, QodeAssistUserHome, QodeAssistWritableSecrets } from './backend-symbols';
import { ConnectionLog } from './connection-log';
import { ConnectionLimitOverrides } from './limit-overrides';
import { McpHubs } from './mcp-service-impl';
import { TheiaHostModels } from './theia-host-models';

/**
 * The core runtime of one window connection: its session pools, tool kit, skills, the
 * process's secrets, the window's log and limit settings, Theia AI's models of this window
 * and the MCP hubs' tools. Bound once per connection behind this symbol; the chat, refactor, completion and
 * Theia-model services are given it. A product rebinds the symbol to compose it otherwise.
 */
export const QodeAssistConnectionRuntime = Symbol('QodeAssistConnectionRuntime');

export function createConnectionRuntime(container: interfaces.Container): QodeAssistRuntime {
    const writable = container.get<WritableSecretsStore>(QodeAssistWritableSecrets);
    const mcp = container.isBound(McpHubs) ? container.get(McpHubs) : undefined;
    const limits = container.isBound(ConnectionLimitOverrides) ? container.get(ConnectionLimitOverrides) : undefined;
    return new QodeAssistRuntime({
        secrets: container.get(QodeAssistSecretsStore),
        // A key set in the UI, or a key file of the environment rotated (a Kubernetes Secret updated in place).
        onSecretsChange: listener => {
            const stopStore = writable.onDidChange?.(() => listener());
            const stopFiles = watchKeyFiles(process.env, listener);
            return () => {
                stopStore?.();
                stopFiles();
            };
        },
        hostModels: container.isBound(TheiaHostModels) ? container.get(TheiaHostModels) : undefined,
        logger: container.isBound(ConnectionLog) ? container.get(ConnectionLog) : undefined,
        sessionServices: limits ? { limits: () => limits.current() } : undefined,
        extraTools: mcp ? workspace => mcp.toolsFor(workspace) : undefined,
        userHome: container.get<string>(QodeAssistUserHome),
        launcher: container.isBound(ProviderLauncher) ? container.get(ProviderLauncher) : undefined
    });
}
