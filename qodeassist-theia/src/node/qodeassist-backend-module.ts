import { BackendApplicationContribution } from '@theia/core/lib/node/backend-application';
import { ConnectionContainerModule } from '@theia/core/lib/node/messaging/connection-container-module';
import { ContainerModule } from '@theia/core/shared/inversify';
import { QODEASSIST_CHAT_PATH, QodeAssistChatClient } from '../common/chat-protocol';
import { QODEASSIST_COMPLETION_PATH } from '../common/completion-protocol';
import { QODEASSIST_CONFIG_PATH, QodeAssistConfigClient } from '../common/config-protocol';
import { QODEASSIST_MCP_PATH, QodeAssistMcpClient } from '../common/mcp-protocol';
import { QODEASSIST_REFACTOR_PATH, QodeAssistRefactorClient } from '../common/refactor-protocol';
import { QODEASSIST_LANGUAGE_MODELS_PATH, QODEASSIST_THEIA_TOOLS_PATH } from '../common/theia-tools-protocol';
import { QodeAssistLanguageModels } from './theia-language-models';
import { ToolHostClient } from '../common/tool-host-protocol';
import { QodeAssistTheiaToolsServiceImpl } from './theia-tools-service-impl';
import { TheiaHostModels } from './theia-host-models';
import { ConnectionLog } from './connection-log';
import { QODEASSIST_LOG_PATH, QodeAssistLogClient } from '../common/log-protocol';
import { QodeAssistCompletionServiceImpl } from './completion-service-impl';
import { McpHubs, McpServerHost, QodeAssistMcpServiceImpl } from './mcp-service-impl';
import { QodeAssistConfigServiceImpl } from './config-service-impl';
import { QodeAssistRefactorServiceImpl } from './refactor-service-impl';
import {
    defaultSecretsStore, defaultWritableSecrets, QodeAssistConfiguration, QodeAssistSecretsStore, QodeAssistUserHome, QodeAssistWritableSecrets, WorkspaceConfigurations
} from './backend-symbols';
import { defaultUserHome, QodeAssistChatServiceImpl } from './chat-service-impl';

/** Chat sessions, refactors and completion engines live per frontend connection, so one browser tab never sees another's events. */
const chatConnectionModule = ConnectionContainerModule.create(({ bind, bindBackendService }) => {
    // Theia AI's language models of this window, for client_api "theia" agents.
    bind(TheiaHostModels).toSelf().inSingletonScope();
    // The window's QodeAssist log: every service of the connection writes to it.
    bind(ConnectionLog).toSelf().inSingletonScope();
    bindBackendService<ConnectionLog, QodeAssistLogClient>(QODEASSIST_LOG_PATH, ConnectionLog, (log, client) => {
        log.setClient(client);
        client.onDidCloseConnection(() => log.dispose());
        return log;
    });
    bind(QodeAssistChatServiceImpl).toSelf().inSingletonScope();
    bindBackendService<QodeAssistChatServiceImpl, QodeAssistChatClient>(QODEASSIST_CHAT_PATH, QodeAssistChatServiceImpl, (service, client) => {
        service.setClient(client);
        client.onDidCloseConnection(() => service.dispose());
        return service;
    });
    bind(QodeAssistRefactorServiceImpl).toSelf().inSingletonScope();
    bindBackendService<QodeAssistRefactorServiceImpl, QodeAssistRefactorClient>(QODEASSIST_REFACTOR_PATH, QodeAssistRefactorServiceImpl, (service, client) => {
        service.setClient(client);
        client.onDidCloseConnection(() => service.dispose());
        return service;
    });
    bind(QodeAssistMcpServiceImpl).toSelf().inSingletonScope();
    bindBackendService<QodeAssistMcpServiceImpl, QodeAssistMcpClient>(QODEASSIST_MCP_PATH, QodeAssistMcpServiceImpl, (service, client) => {
        service.setClient(client);
        client.onDidCloseConnection(() => service.dispose());
        return service;
    });
    bind(QodeAssistConfigServiceImpl).toSelf().inSingletonScope();
    bindBackendService<QodeAssistConfigServiceImpl, QodeAssistConfigClient>(QODEASSIST_CONFIG_PATH, QodeAssistConfigServiceImpl, (service, client) => {
        service.setClient(client);
        client.onDidCloseConnection(() => service.dispose());
        return service;
    });
    bind(QodeAssistTheiaToolsServiceImpl).toSelf().inSingletonScope();
    bindBackendService<QodeAssistTheiaToolsServiceImpl, ToolHostClient>(QODEASSIST_THEIA_TOOLS_PATH, QodeAssistTheiaToolsServiceImpl, (service, client) => {
        service.setClient(client);
        client.onDidCloseConnection(() => service.dispose());
        return service;
    });
    bind(QodeAssistLanguageModels).toSelf().inSingletonScope();
    bindBackendService<QodeAssistLanguageModels, object>(QODEASSIST_LANGUAGE_MODELS_PATH, QodeAssistLanguageModels, (service, client) => {
        client.onDidCloseConnection(() => service.dispose());
        return service;
    });
    bind(QodeAssistCompletionServiceImpl).toSelf().inSingletonScope();
    bindBackendService<QodeAssistCompletionServiceImpl, object>(QODEASSIST_COMPLETION_PATH, QodeAssistCompletionServiceImpl, (service, client) => {
        (client as { onDidCloseConnection?(listener: () => void): void }).onDidCloseConnection?.(() => service.dispose());
        return service;
    });
});

export default new ContainerModule(bind => {
    bind(QodeAssistSecretsStore).toDynamicValue(ctx => defaultSecretsStore(ctx.container.get(QodeAssistWritableSecrets))).inSingletonScope();
    bind(QodeAssistConfiguration).toConstantValue(new WorkspaceConfigurations());
    bind(QodeAssistUserHome).toConstantValue(defaultUserHome());
    bind(QodeAssistWritableSecrets).toDynamicValue(ctx => defaultWritableSecrets(ctx.container.get<string>(QodeAssistUserHome))).inSingletonScope();
    bind(McpHubs).toSelf().inSingletonScope();
    bind(McpServerHost).toSelf().inSingletonScope();
    bind(BackendApplicationContribution).toDynamicValue(ctx => ({
        // Hub servers and the server mode end with the backend.
        onStop: () => {
            void ctx.container.get(McpHubs).dispose();
            void ctx.container.get(McpServerHost).dispose();
        }
    })).inSingletonScope();
    bind(ConnectionContainerModule).toConstantValue(chatConnectionModule);
});
