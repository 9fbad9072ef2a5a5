import * as React from '@theia/core/shared/react';
import { PendingPermission } from '../shared/pending-permission';
import { MessageActions, MessageView } from './chat-message-view';
import { ResetVersions } from './chat-message-actions';
import { versionsAt } from './chat-versions';
import { ChatMessage, ChatTranscript } from './chat-transcript';

/** Keeps the newest content in view after every render while the user has not scrolled up. */
function ScrollAnchor({ stick }: { stick: () => boolean }): React.ReactElement {
    const anchor = React.useRef<HTMLDivElement>(null);
    React.useLayoutEffect(() => {
        if (stick()) {
            anchor.current?.scrollIntoView({ block: 'end' });
        }
    });
    return <div ref={anchor} className='qa-scroll-anchor' />;
}

/** Tells the message list that the streaming answer changed, without rendering the rest of the view. */
export class MessagesChanged {
    private revision = 0;
    private readonly listeners = new Set<() => void>();
    readonly subscribe = (listener: () => void): () => void => {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    };
    readonly current = (): number => this.revision;
    fire(): void {
        this.revision++;
        for (const listener of this.listeners) {
            listener();
        }
    }
}

export interface MessageListProps {
    messages: readonly ChatMessage[];
    changed: MessagesChanged;
    permissions: readonly PendingPermission[];
    actions: MessageActions;
    stick: () => boolean;
    /** The chat's kept versions, and whether a message is in its saved history. */
    transcript: Pick<ChatTranscript, 'branches' | 'isRecorded'>;
    /** The questions (counted from 0) with a checkpoint of the workspace before them. */
    restorable: ReadonlySet<number>;
}

/**
 * The chat's messages. While an answer streams only this list renders again, on `changed`: the
 * toolbar and the composer (pickers, chips, buttons) stay as they are, and no React elements are
 * made for them every batch only to be thrown away.
 */
export function MessageList({ messages, changed, permissions, actions, stick, transcript, restorable }: MessageListProps): React.ReactElement {
    React.useSyncExternalStore(changed.subscribe, changed.current);
    let turn = -1;
    return <>
        {messages.map((message, index) => {
            turn += message.role === 'user' ? 1 : 0;
            const position = turn < 0 ? undefined : { turn, part: message.role === 'user' ? 'question' as const : 'answer' as const };
            return <MessageView key={message.id} message={message} revision={message.revision}
                permissions={message.status === 'streaming' ? permissions : NO_PERMISSIONS} last={index === messages.length - 1} actions={actions}
                recorded={transcript.isRecorded(message)} versions={versionsAt(transcript.branches, position)}
                restorable={message.role === 'user' && position !== undefined && restorable.has(position.turn)} />;
        })}
        <ResetVersions branches={transcript.branches} messages={messages} onPick={actions.switchVersion} />
        <ScrollAnchor stick={stick} />
    </>;
}

const NO_PERMISSIONS: readonly PendingPermission[] = [];
