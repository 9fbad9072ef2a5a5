import { Emitter, Event } from '@theia/core';
import { injectable } from '@theia/core/shared/inversify';
import { QodeAssistConfigClient } from '../../common/config-protocol';

/** Hears the backend say the configuration changed; the view refreshes. */
@injectable()
export class ConfigClientImpl implements QodeAssistConfigClient {
    private readonly changedEmitter = new Emitter<void>();
    readonly onDidChange: Event<void> = this.changedEmitter.event;

    onConfigurationChanged(): void {
        this.changedEmitter.fire();
    }
}
