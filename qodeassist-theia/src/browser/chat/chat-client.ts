import { Emitter, Event } from '@theia/core';
import { injectable } from '@theia/core/shared/inversify';
import { PermissionAnswer, PermissionRequest, QodeAssistChatClient, SessionEvent } from '../../common/chat-protocol';

export interface SessionEventsEnvelope {
    sessionId: string;
    events: SessionEvent[];
}

/** Receives every session event the backend pushes and fans it out; each chat widget listens for its own session. */
@injectable()
export class QodeAssistChatClientImpl implements QodeAssistChatClient {
    private readonly onSessionEventsEmitter = new Emitter<SessionEventsEnvelope>();
    readonly onDidReceiveSessionEvents: Event<SessionEventsEnvelope> = this.onSessionEventsEmitter.event;

    private readonly permissionHandlers = new Map<string, (request: PermissionRequest) => Promise<PermissionAnswer>>();

    onSessionEvents(sessionId: string, events: SessionEvent[]): void {
        this.onSessionEventsEmitter.fire({ sessionId, events });
    }

    /** The chat widget showing this session answers; without one, nothing runs. */
    async requestToolPermission(sessionId: string, request: PermissionRequest): Promise<PermissionAnswer> {
        const handler = this.permissionHandlers.get(sessionId);
        return handler ? handler(request) : 'deny';
    }

    setPermissionHandler(sessionId: string, handler: (request: PermissionRequest) => Promise<PermissionAnswer>): { dispose(): void } {
        this.permissionHandlers.set(sessionId, handler);
        return { dispose: () => this.permissionHandlers.delete(sessionId) };
    }
}
