import { interfaces } from '@theia/core/shared/inversify';
import { ChatController } from './chat-controller';
import { ChatControllerDeps } from './chat-controller-ports';
import { ChatControllerFactory } from './chat-controller-service';
import { DefaultSetupCardRenderer, SetupCardRenderer } from './setup-card-renderer';

/**
 * QodeAssist's own controller of each chat view and its Quick Setup card, under the Symbols a
 * product rebinds. Apart from the frontend module so that a product's spec can load them in Node
 * (the rest of the module needs Monaco, which only loads in a browser).
 */
export function bindChatViewDefaults(bind: interfaces.Bind): void {
    bind(ChatControllerFactory).toConstantValue((deps: ChatControllerDeps) => new ChatController(deps));
    bind(DefaultSetupCardRenderer).toSelf().inSingletonScope();
    bind(SetupCardRenderer).toService(DefaultSetupCardRenderer);
}
