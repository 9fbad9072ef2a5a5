import type { SetupCardBranding } from '@qodeassist/theia/lib/browser/chat/setup-card';
import { DefaultSetupCardRenderer, SetupCardRenderer } from '@qodeassist/theia/lib/browser/chat/setup-card-renderer';
import { FrontendApplicationConfigProvider } from '@theia/core/lib/browser/frontend-application-config-provider';
import { ContainerModule, injectable } from '@theia/core/shared/inversify';

/**
 * The product's name and setup guide, as its app's package.json sets them (`theia.frontend.config`:
 * `applicationName`, and `productSetupGuide`). Only an https address becomes a link: the card must
 * never carry a `javascript:` or `file:` URL, whoever wrote the config.
 */
export function productBranding(config: { applicationName: string; productSetupGuide?: unknown }): SetupCardBranding {
    const guide = typeof config.productSetupGuide === 'string' && URL.canParse(config.productSetupGuide) && new URL(config.productSetupGuide).protocol === 'https:'
        ? config.productSetupGuide : undefined;
    return {
        title: `Set up ${config.applicationName}`,
        help: guide ? { label: `How ${config.applicationName} connects to a model`, url: guide } : undefined
    };
}

/** The Quick Setup card under the product's name, with a link to the product's own guide. */
@injectable()
export class ProductSetupCardRenderer extends DefaultSetupCardRenderer {
    protected override branding(): SetupCardBranding {
        return productBranding(FrontendApplicationConfigProvider.get());
    }
}

/** Loaded after QodeAssist's frontend module (the browser app lists this extension after it): the rebind replaces QodeAssist's card. */
export default new ContainerModule((bind, _unbind, _isBound, rebind) => {
    bind(ProductSetupCardRenderer).toSelf().inSingletonScope();
    rebind(SetupCardRenderer).toService(ProductSetupCardRenderer);
});
