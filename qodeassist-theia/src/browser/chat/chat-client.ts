import { Emitter, Event } from '@theia/core';
import { injectable } from '@theia/core/shared/inversify';
import { QodeAssistChatClient, SessionEvent } from '../../common/chat-protocol';

export interface SessionEventEnvelope {
    sessionId: string;
    event: SessionEvent;
}

/** Receives every session event the backend pushes and fans it out; each chat widget listens for its own session. */
@injectable()
export class QodeAssistChatClientImpl implements QodeAssistChatClient {
    private readonly onSessionEventEmitter = new Emitter<SessionEventEnvelope>();
    readonly onDidReceiveSessionEvent: Event<SessionEventEnvelope> = this.onSessionEventEmitter.event;

    onSessionEvent(sessionId: string, event: SessionEvent): void {
        this.onSessionEventEmitter.fire({ sessionId, event });
    }
}
