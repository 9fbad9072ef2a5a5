import { bindViewContribution, WidgetFactory } from '@theia/core/lib/browser';
import { ServiceConnectionProvider } from '@theia/core/lib/browser/messaging/service-connection-provider';
import { WebSocketConnectionSource } from '@theia/core/lib/browser/messaging/ws-connection-source';
import { CommandContribution, MenuContribution } from '@theia/core';
import { FrontendApplicationContribution, KeybindingContribution } from '@theia/core/lib/browser';
import { ContainerModule } from '@theia/core/shared/inversify';
import { QODEASSIST_CHAT_PATH, QodeAssistChatService } from '../common/chat-protocol';
import { QODEASSIST_COMPLETION_PATH, QodeAssistCompletionService } from '../common/completion-protocol';
import { QODEASSIST_CONFIG_PATH, QodeAssistConfigService } from '../common/config-protocol';
import { QODEASSIST_MCP_PATH, QodeAssistMcpService } from '../common/mcp-protocol';
import { QODEASSIST_MCP_FEATURES_PATH, QodeAssistMcpFeaturesService } from '../common/mcp-features-protocol';
import { QODEASSIST_REFACTOR_PATH, QodeAssistRefactorService } from '../common/refactor-protocol';
import { CompletionContextCollector } from './completion/completion-context-collector';
import { CompletionFiguresRecorder } from './completion/completion-figures-recorder';
import { CompletionStatus } from './completion/completion-status';
import { CompletionStatusBar } from './completion/completion-status-bar';
import { InlineCompletionContribution } from './completion/inline-completion-contribution';
import { NextEditContribution } from './completion/next-edit-contribution';
import { ChatComposer } from './chat/chat-composer';
import { ChatComposerService } from './chat/chat-composer-service';
import { ChatViewContribution } from './chat/chat-view-contribution';
import { ChatWidget } from './chat/chat-widget';
import { ChatViewOptions } from './chat/chat-view-identity';
import { bindChatViewDefaults } from './chat/chat-view-defaults';
import { ConfigurationContribution } from './config/configuration-contribution';
import { BackendConnection, createBackendConnection } from './connection/backend-connection';
import { ConfigClientImpl } from './config/config-client';
import { ConfigurationWidget } from './config/configuration-widget';
import { McpClientImpl, McpContribution } from './mcp/mcp-contribution';
import { McpElicitations } from './mcp/mcp-elicitations';
import { McpFeaturesContribution } from './mcp/mcp-features-contribution';
import { bindQodeAssistPreferences } from './qodeassist-preferences';
import { QodeAssistSwitch } from './qodeassist-switch';
import { LogContribution } from './log-contribution';
import { LogClientImpl } from './log-client';
import { LimitSettingsContribution } from './limit-settings-contribution';
import { QODEASSIST_LOG_PATH, QodeAssistLogService } from '../common/log-protocol';
import { RefactorContribution } from './refactor/refactor-contribution';
import { ChatFileEdits } from './shared/file-edits';
import { QodeAssistChatClientImpl } from './shared/qodeassist-chat-client';
import { TheiaAiBridge } from './theia-ai/theia-ai-bridge';
import { QodeAssistProjectTrust } from './trust/project-trust';
import { WorkspaceRestrictionContribution } from '@theia/workspace/lib/browser/workspace-trust-service';
import { QODEASSIST_LANGUAGE_MODELS_PATH, QODEASSIST_THEIA_TOOLS_PATH, QodeAssistLanguageModelsService, QodeAssistTheiaToolsService } from '../common/theia-tools-protocol';
import '../../src/browser/style/qodeassist.css';
import '../../src/browser/style/chat-rewind.css';
import '../../src/browser/style/mcp-elicitation.css';
import '../../src/browser/style/next-edit.css';

export default new ContainerModule(bind => {
    bindQodeAssistPreferences(bind);
    bind(QodeAssistSwitch).toSelf().inSingletonScope();

    // Whether the IDE backend can be reached; while it is not, the page's connection token is refreshed so a restarted backend takes the page back.
    bind(BackendConnection).toDynamicValue(ctx => createBackendConnection(ctx.container.get(WebSocketConnectionSource))).inSingletonScope();
    bind(FrontendApplicationContribution).toService(BackendConnection);

    bind(ChatFileEdits).toSelf().inSingletonScope();
    bind(QodeAssistChatClientImpl).toSelf().inSingletonScope();
    bind(QodeAssistChatService).toDynamicValue(ctx =>
        ServiceConnectionProvider.createProxy<QodeAssistChatService>(ctx.container, QODEASSIST_CHAT_PATH, ctx.container.get(QodeAssistChatClientImpl))
    ).inSingletonScope();

    // The pieces of a chat view a product may rebind (see browser-app/example): the composer, the controller and the Quick Setup card.
    bind(ChatComposer).toSelf();
    bind(ChatComposerService).toService(ChatComposer);
    bindChatViewDefaults(bind);
    bind(ChatWidget).toSelf();
    bind(WidgetFactory).toDynamicValue(ctx => ({
        id: ChatWidget.ID,
        createWidget: (options?: ChatViewOptions) => {
            const chat = ctx.container.get(ChatWidget);
            chat.setViewOptions(options);
            return chat;
        }
    })).inSingletonScope();
    bindViewContribution(bind, ChatViewContribution);

    bind(QodeAssistRefactorService).toDynamicValue(ctx =>
        ServiceConnectionProvider.createProxy<QodeAssistRefactorService>(ctx.container, QODEASSIST_REFACTOR_PATH, ctx.container.get(QodeAssistChatClientImpl))
    ).inSingletonScope();
    bind(RefactorContribution).toSelf().inSingletonScope();
    for (const contribution of [CommandContribution, KeybindingContribution, MenuContribution]) {
        bind(contribution).toService(RefactorContribution);
    }

    bind(McpContribution).toSelf().inSingletonScope();
    bind(McpClientImpl).toSelf().inSingletonScope();
    bind(QodeAssistMcpService).toDynamicValue(ctx =>
        ServiceConnectionProvider.createProxy<QodeAssistMcpService>(ctx.container, QODEASSIST_MCP_PATH, ctx.container.get(McpClientImpl))
    ).inSingletonScope();
    for (const contribution of [FrontendApplicationContribution, CommandContribution]) {
        bind(contribution).toService(McpContribution);
    }
    // MCP resources (@), prompts (/), roots and the servers' questions shown in the chat.
    bind(McpElicitations).toSelf().inSingletonScope();
    bind(QodeAssistMcpFeaturesService).toDynamicValue(ctx =>
        ServiceConnectionProvider.createProxy<QodeAssistMcpFeaturesService>(ctx.container, QODEASSIST_MCP_FEATURES_PATH, ctx.container.get(McpElicitations))
    ).inSingletonScope();
    bind(McpFeaturesContribution).toSelf().inSingletonScope();
    bind(FrontendApplicationContribution).toService(McpFeaturesContribution);

    bind(ConfigClientImpl).toSelf().inSingletonScope();
    // The project layer is read only in a trusted workspace; this tells the backend and shows what waits for trust.
    bind(QodeAssistProjectTrust).toSelf().inSingletonScope();
    bind(FrontendApplicationContribution).toService(QodeAssistProjectTrust);
    bind(WorkspaceRestrictionContribution).toService(QodeAssistProjectTrust);
    bind(QodeAssistConfigService).toDynamicValue(ctx =>
        ServiceConnectionProvider.createProxy<QodeAssistConfigService>(ctx.container, QODEASSIST_CONFIG_PATH, ctx.container.get(ConfigClientImpl))
    ).inSingletonScope();
    bind(FrontendApplicationContribution).to(LimitSettingsContribution).inSingletonScope();
    bind(ConfigurationWidget).toSelf();
    bind(WidgetFactory).toDynamicValue(ctx => ({ id: ConfigurationWidget.ID, createWidget: () => ctx.container.get(ConfigurationWidget) })).inSingletonScope();
    bindViewContribution(bind, ConfigurationContribution);

    // Theia AI interop: QodeAssist's tools and chat agents for Theia's own agents.
    bind(QodeAssistTheiaToolsService).toDynamicValue(ctx =>
        ServiceConnectionProvider.createProxy<QodeAssistTheiaToolsService>(ctx.container, QODEASSIST_THEIA_TOOLS_PATH, ctx.container.get(QodeAssistChatClientImpl))
    ).inSingletonScope();
    bind(QodeAssistLanguageModelsService).toDynamicValue(ctx =>
        ServiceConnectionProvider.createProxy<QodeAssistLanguageModelsService>(ctx.container, QODEASSIST_LANGUAGE_MODELS_PATH)
    ).inSingletonScope();
    bind(TheiaAiBridge).toSelf().inSingletonScope();
    bind(FrontendApplicationContribution).toService(TheiaAiBridge);

    bind(LogClientImpl).toSelf().inSingletonScope();
    bind(QodeAssistLogService).toDynamicValue(ctx =>
        ServiceConnectionProvider.createProxy<QodeAssistLogService>(ctx.container, QODEASSIST_LOG_PATH, ctx.container.get(LogClientImpl))
    ).inSingletonScope();
    bind(LogContribution).toSelf().inSingletonScope();
    for (const contribution of [FrontendApplicationContribution, CommandContribution]) {
        bind(contribution).toService(LogContribution);
    }

    bind(QodeAssistCompletionService).toDynamicValue(ctx =>
        ServiceConnectionProvider.createProxy<QodeAssistCompletionService>(ctx.container, QODEASSIST_COMPLETION_PATH, ctx.container.get<CompletionStatus>(CompletionStatus))
    ).inSingletonScope();
    bind(CompletionStatusBar).toSelf().inSingletonScope();
    bind(CompletionStatus).toService(CompletionStatusBar);
    bind(CompletionFiguresRecorder).toSelf().inSingletonScope();
    bind(CompletionContextCollector).toSelf().inSingletonScope();
    bind(InlineCompletionContribution).toSelf().inSingletonScope();
    for (const contribution of [FrontendApplicationContribution, CommandContribution, KeybindingContribution]) {
        bind(contribution).toService(InlineCompletionContribution);
    }
    bind(NextEditContribution).toSelf().inSingletonScope();
    for (const contribution of [FrontendApplicationContribution, CommandContribution, KeybindingContribution]) {
        bind(contribution).toService(NextEditContribution);
    }
});
