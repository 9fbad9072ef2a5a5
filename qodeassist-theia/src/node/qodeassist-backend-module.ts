import { ConnectionContainerModule } from '@theia/core/lib/node/messaging/connection-container-module';
import { ContainerModule } from '@theia/core/shared/inversify';
import { QODEASSIST_CHAT_PATH, QodeAssistChatClient } from '../common/chat-protocol';
import { QODEASSIST_COMPLETION_PATH } from '../common/completion-protocol';
import { QODEASSIST_REFACTOR_PATH, QodeAssistRefactorClient } from '../common/refactor-protocol';
import { QodeAssistCompletionServiceImpl } from './completion-service-impl';
import { QodeAssistRefactorServiceImpl } from './refactor-service-impl';
import {
    defaultSecretsStore, defaultUserHome, QodeAssistChatServiceImpl, QodeAssistConfiguration, QodeAssistSecretsStore, QodeAssistUserHome, WorkspaceConfigurations
} from './chat-service-impl';

/** Chat sessions, refactors and completion engines live per frontend connection, so one browser tab never sees another's events. */
const chatConnectionModule = ConnectionContainerModule.create(({ bind, bindBackendService }) => {
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
    bind(QodeAssistCompletionServiceImpl).toSelf().inSingletonScope();
    bindBackendService<QodeAssistCompletionServiceImpl, object>(QODEASSIST_COMPLETION_PATH, QodeAssistCompletionServiceImpl, (service, client) => {
        (client as { onDidCloseConnection?(listener: () => void): void }).onDidCloseConnection?.(() => service.dispose());
        return service;
    });
});

export default new ContainerModule(bind => {
    bind(QodeAssistSecretsStore).toDynamicValue(() => defaultSecretsStore()).inSingletonScope();
    bind(QodeAssistConfiguration).toConstantValue(new WorkspaceConfigurations());
    bind(QodeAssistUserHome).toConstantValue(defaultUserHome());
    bind(ConnectionContainerModule).toConstantValue(chatConnectionModule);
});
