import { Emitter, Event } from '@theia/core';
import { injectable } from '@theia/core/shared/inversify';
import { QodeAssistChatClient, SessionEvent } from '../../common/chat-protocol';

export interface SessionEventsEnvelope {
    sessionId: string;
    events: SessionEvent[];
}

/** Receives every session event the backend pushes and fans it out; each chat widget listens for its own session. */
@injectable()
export class QodeAssistChatClientImpl implements QodeAssistChatClient {
    private readonly onSessionEventsEmitter = new Emitter<SessionEventsEnvelope>();
    readonly onDidReceiveSessionEvents: Event<SessionEventsEnvelope> = this.onSessionEventsEmitter.event;

    onSessionEvents(sessionId: string, events: SessionEvent[]): void {
        this.onSessionEventsEmitter.fire({ sessionId, events });
    }
}
