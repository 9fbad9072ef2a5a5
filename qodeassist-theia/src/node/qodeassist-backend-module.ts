import { ChatOwners, ChatStore, PROCESS_SECRETS, ProviderLauncher, QodeAssistRuntime } from '@qodeassist/core';
import { FileUri } from '@theia/core/lib/common/file-uri';
import { WorkspaceServer } from '@theia/workspace/lib/common/workspace-protocol';
import { join } from 'node:path';
import { BackendApplicationContribution } from '@theia/core/lib/node/backend-application';
import { ConnectionContainerModule } from '@theia/core/lib/node/messaging/connection-container-module';
import { ContainerModule, interfaces } from '@theia/core/shared/inversify';
import { QODEASSIST_CHAT_PATH } from '../common/chat-protocol';
import { QODEASSIST_COMPLETION_PATH } from '../common/completion-protocol';
import { QODEASSIST_CONFIG_PATH } from '../common/config-protocol';
import { QODEASSIST_LOG_PATH } from '../common/log-protocol';
import { QODEASSIST_MCP_PATH } from '../common/mcp-protocol';
import { QODEASSIST_MCP_FEATURES_PATH } from '../common/mcp-features-protocol';
import { QODEASSIST_REFACTOR_PATH } from '../common/refactor-protocol';
import { QODEASSIST_LANGUAGE_MODELS_PATH, QODEASSIST_THEIA_TOOLS_PATH } from '../common/theia-tools-protocol';
import { QodeAssistCompletionServiceImpl } from './completion-service-impl';
import { QodeAssistConfigServiceImpl } from './config-service-impl';
import { ConnectionLog } from './connection-log';
import { ConnectionLimitOverrides } from './limit-overrides';
import { createConnectionRuntime, QodeAssistConnectionRuntime } from './connection-runtime';
import { McpHubs, McpServerHost, QodeAssistMcpServiceImpl } from './mcp-service-impl';
import { McpOAuthCallback } from './mcp-oauth-callback';
import { McpElicitationRouter, QodeAssistMcpFeaturesServiceImpl } from './mcp-features-service-impl';
import { QodeAssistRefactorServiceImpl } from './refactor-service-impl';
import { TheiaHostModels } from './theia-host-models';
import { QodeAssistLanguageModels } from './theia-language-models';
import { QodeAssistTheiaToolsServiceImpl } from './theia-tools-service-impl';
import { QodeAssistChatOwners, QodeAssistConfiguration, QodeAssistKnownSecrets, QodeAssistSecretsStore, QodeAssistUserHome, QodeAssistWritableSecrets } from './backend-symbols';
import { defaultSecretsStore, defaultWritableSecrets } from './default-secrets';
import { WorkspaceConfigurations } from './workspace-configurations';
import { defaultUserHome, QodeAssistChatServiceImpl } from './chat-service-impl';
import { WorkspaceTrustRegistry } from './workspace-trust';

/** Chat sessions, refactors and completion engines live per frontend connection, so one browser tab never sees another's events. */
const chatConnectionModule = ConnectionContainerModule.create(({ bind, bindBackendService }) => {
    /** A service of this window at `path`: it gets the window's proxy as its client (when it takes one) and is disposed when the window goes. */
    const perWindow = <S extends { dispose(): void; setClient?(client: unknown): void }>(path: string, service: interfaces.Newable<S>) => {
        bind(service).toSelf().inSingletonScope();
        bindBackendService<S, object>(path, service, (instance, client) => {
            instance.setClient?.(client);
            client.onDidCloseConnection(() => instance.dispose());
            return instance;
        });
    };
    // Theia AI's language models of this window, for client_api "theia" agents.
    bind(TheiaHostModels).toSelf().inSingletonScope();
    // The user's limit settings as this window last sent them (through the config service).
    bind(ConnectionLimitOverrides).toSelf().inSingletonScope();
    // The window's core runtime (session pools, tool kit, skills), shared by its services; disposed with the connection.
    bind<QodeAssistRuntime>(QodeAssistConnectionRuntime).toDynamicValue(ctx => createConnectionRuntime(ctx.container)).inSingletonScope()
        .onDeactivation(runtime => runtime.dispose());
    // The window's QodeAssist log: every service of the connection writes to it.
    perWindow(QODEASSIST_LOG_PATH, ConnectionLog);
    perWindow(QODEASSIST_CHAT_PATH, QodeAssistChatServiceImpl);
    perWindow(QODEASSIST_REFACTOR_PATH, QodeAssistRefactorServiceImpl);
    perWindow(QODEASSIST_MCP_PATH, QodeAssistMcpServiceImpl);
    perWindow(QODEASSIST_MCP_FEATURES_PATH, QodeAssistMcpFeaturesServiceImpl);
    perWindow(QODEASSIST_CONFIG_PATH, QodeAssistConfigServiceImpl);
    perWindow(QODEASSIST_THEIA_TOOLS_PATH, QodeAssistTheiaToolsServiceImpl);
    perWindow(QODEASSIST_LANGUAGE_MODELS_PATH, QodeAssistLanguageModels);
    perWindow(QODEASSIST_COMPLETION_PATH, QodeAssistCompletionServiceImpl);
});

export default new ContainerModule(bind => {
    // The process-wide set: every redaction (wire errors, logs, saved chats) consults it.
    bind(QodeAssistKnownSecrets).toConstantValue(PROCESS_SECRETS);
    bind(QodeAssistSecretsStore).toDynamicValue(ctx => defaultSecretsStore(ctx.container.get(QodeAssistWritableSecrets), ctx.container.get(QodeAssistKnownSecrets))).inSingletonScope();
    bind(WorkspaceTrustRegistry).toSelf().inSingletonScope();
    bind(QodeAssistConfiguration).toDynamicValue(ctx => new WorkspaceConfigurations(ctx.container.get(WorkspaceTrustRegistry))).inSingletonScope();
    bind(QodeAssistUserHome).toConstantValue(defaultUserHome());
    bind(QodeAssistWritableSecrets).toDynamicValue(ctx => defaultWritableSecrets(ctx.container.get<string>(QodeAssistUserHome), undefined, ctx.container.get(QodeAssistKnownSecrets)))
        .inSingletonScope();
    // One owner per chat for the whole backend: windows showing the same chat share it.
    bind(QodeAssistChatOwners).toConstantValue(new ChatOwners());
    bind(McpHubs).toSelf().inSingletonScope();
    // The route the browser comes back to after an MCP server's OAuth sign-in.
    bind(McpOAuthCallback).toSelf().inSingletonScope();
    bind(BackendApplicationContribution).toService(McpOAuthCallback);
    bind(McpElicitationRouter).toSelf().inSingletonScope();
    bind(McpServerHost).toSelf().inSingletonScope();
    // Provider servers started by [launch]: one set for the backend, whichever window's request started them.
    bind(ProviderLauncher).toConstantValue(new ProviderLauncher());
    bind(BackendApplicationContribution).toDynamicValue(ctx => ({
        // Temporary files of chat saves a crash cut short: the user's chats and the workspace opened last (others at their first use).
        onStart: () => {
            const folders = [join(ctx.container.get<string>(QodeAssistUserHome), '.qodeassist', 'chats')];
            const workspaces = ctx.container.isBound(WorkspaceServer) ? ctx.container.get<WorkspaceServer>(WorkspaceServer).getMostRecentlyUsedWorkspace() : Promise.resolve(undefined);
            void workspaces.then(uri => {
                if (uri?.startsWith('file:')) {
                    folders.push(join(FileUri.fsPath(uri), '.qodeassist', 'chats'));
                }
                return Promise.all(folders.map(folder => new ChatStore(folder).removeLeftovers()));
            }).catch(() => undefined);
        },
        // Hub servers, the server mode and the provider servers QodeAssist started (only those) end with the backend.
        onStop: () => {
            void ctx.container.get(McpHubs).dispose();
            void ctx.container.get(McpServerHost).dispose();
            void ctx.container.get(ProviderLauncher).dispose();
        }
    })).inSingletonScope();
    bind(ConnectionContainerModule).toConstantValue(chatConnectionModule);
});
