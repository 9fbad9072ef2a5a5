import { injectable } from '@theia/core/shared/inversify';
import * as React from '@theia/core/shared/react';
import { SetupCard, SetupCardBranding, SetupCardProps } from './setup-card';

/**
 * Renders the Quick Setup the chat shows while it has no agent it can reach. A product rebinds it
 * to name itself and link its own setup guide, or to show a card of its own.
 */
export const SetupCardRenderer = Symbol('SetupCardRenderer');
export interface SetupCardRenderer {
    render(props: SetupCardProps): React.ReactNode;
}

/** QodeAssist's own card, headed "Set up QodeAssist"; a subclass changes the heading and help link through `branding`. */
@injectable()
export class DefaultSetupCardRenderer implements SetupCardRenderer {
    render(props: SetupCardProps): React.ReactNode {
        return <SetupCard {...props} branding={this.branding()} />;
    }

    protected branding(): SetupCardBranding | undefined {
        return undefined;
    }
}
