/**
 * A window of a real Theia backend without a browser: the load benchmark's user. It connects as
 * Theia's frontend does (the page request that sets the connection-token cookie, socket.io on
 * `/services`, the initial-connect handshake, one multiplexed channel per service, JSON-RPC over
 * msgpack by @theia/core's own classes), opens every QodeAssist service a window opens, answers
 * the backend's calls as an idle window would, and types and chats through the services' proxies.
 */
import type { ChatEvent, ChatInput, ChatStorage, ChatTurnOptions, OpenedChat } from '@qodeassist/core';
import { ChannelMultiplexer, ForwardingChannel } from '@theia/core/lib/common/message-rpc/channel';
import { Uint8ArrayReadBuffer, Uint8ArrayWriteBuffer } from '@theia/core/lib/common/message-rpc/uint8-array-message-buffer';
import { ConnectionManagementMessages } from '@theia/core/lib/common/messaging/connection-management';
import { RpcProxyFactory } from '@theia/core/lib/common/messaging/proxy-factory';
import { randomUUID } from 'node:crypto';
import { io, Socket } from 'socket.io-client';

/**
 * The services' paths and the calls used here, restated from qodeassist-theia/src/common/*-protocol.ts:
 * the test package is built before the Theia adapter, so it cannot import it.
 */
export const QODEASSIST_PATHS = {
    log: '/services/qodeassist/log',
    chat: '/services/qodeassist/chat',
    refactor: '/services/qodeassist/refactor',
    mcp: '/services/qodeassist/mcp',
    config: '/services/qodeassist/config',
    theiaTools: '/services/qodeassist/theia-tools',
    languageModels: '/services/qodeassist/language-models',
    completion: '/services/qodeassist/completion'
} as const;

export interface ChatService {
    openSession(storage: ChatStorage, chatId?: string): Promise<OpenedChat>;
    send(chatId: string, input: ChatInput, options: ChatTurnOptions): Promise<string>;
    closeSession(chatId: string): Promise<void>;
}

/** A completion query as the editor's inline provider sends it (the fields this benchmark fills). */
export interface CompletionQuery {
    id: number;
    workspacePath?: string;
    file: string;
    relativePath: string;
    language: string;
    text: string;
    offset: number;
    settings: { linesBefore: number; linesAfter: number; wholeFile: boolean; prose: 'drop' | 'comment'; lines: 'auto' | 'single' | 'multi'; openFilesBudget: number; useGitignore: boolean; contextTokens?: number };
}

export interface CompletionAnswer {
    text: string;
    cancelled?: boolean;
    skipped?: string;
    error?: { message: string };
}

export interface CompletionService {
    complete(query: CompletionQuery): Promise<CompletionAnswer>;
}

/** Every path a window opens; the backend builds the window's runtime and services when their channels open. */
const ALL_PATHS = Object.values(QODEASSIST_PATHS);

/** The window's side of the backend's calls, as an idle window answers them: no open editors, no problems shown, tools that ask are denied. */
function windowClient(onEvents: (chatId: string, events: ChatEvent[]) => void): object {
    return {
        onSessionEvents: onEvents,
        onChatNotice: () => undefined,
        requestToolPermission: async () => 'deny',
        requestAgentPermission: async () => ({ cancelled: true }),
        getDiagnostics: async () => [],
        readOpenDocument: async () => undefined,
        writeDocument: async () => {
            throw new Error('The load benchmark\'s window has no editors to write through.');
        },
        onLaunchStatus: () => undefined,
        onLog: () => undefined,
        onConfigurationChanged: () => undefined,
        onMcpChanged: () => undefined,
        requestMcpToolPermission: async () => 'deny',
        onRefactorProgress: () => undefined
    };
}

/** The page request a browser makes first: its answer sets the connection-token cookie the socket must carry. */
async function connectionCookie(url: string): Promise<string> {
    const response = await fetch(url, { method: 'GET' });
    await response.arrayBuffer();
    const cookies = response.headers.getSetCookie().map(cookie => cookie.split(';')[0]).filter(cookie => cookie.startsWith('theia-connection-token='));
    if (cookies.length === 0) {
        throw new Error(`${url} set no theia-connection-token cookie: is it a Theia browser backend (not Electron's)?`);
    }
    return cookies.join('; ');
}

export class HeadlessWindow {
    private constructor(
        private readonly socket: Socket,
        /** Each chat's listener: the backend calls the window's client, which has no chat view to show events in. */
        private readonly listeners: Map<string, (events: ChatEvent[]) => void>,
        readonly chat: ChatService,
        readonly completion: CompletionService
    ) { }

    /** Opens a window on the backend at `url` (http://host:port) and every QodeAssist service of it; rejects after `timeoutMs`. */
    static async open(url: string, timeoutMs = 60_000): Promise<HeadlessWindow> {
        const cookie = await connectionCookie(url);
        const socket = io(`${url}/services`, { path: '/socket.io', transports: ['websocket'], extraHeaders: { cookie }, reconnection: false, autoConnect: false });
        const timer = setTimeout(() => socket.disconnect(), timeoutMs);
        try {
            const connected = new Promise<void>((resolve, reject) => {
                socket.once(ConnectionManagementMessages.INITIAL_CONNECT, () => resolve());
                socket.once('connect_error', error => reject(new Error(`The websocket to ${url} was refused: ${error.message}`)));
                socket.once('disconnect', reason => reject(new Error(`The websocket to ${url} closed before the window connected: ${reason}`)));
            });
            socket.once('connect', () => socket.emit(ConnectionManagementMessages.INITIAL_CONNECT, randomUUID()));
            socket.connect();
            await connected;
            const multiplexer = new ChannelMultiplexer(mainChannel(socket));
            const listeners = new Map<string, (events: ChatEvent[]) => void>();
            const client = windowClient((chatId, events) => listeners.get(chatId)?.(events));
            const proxies = new Map<string, unknown>();
            for (const path of ALL_PATHS) {
                const factory = new RpcProxyFactory<object>(client);
                factory.listen(await multiplexer.open(path));
                proxies.set(path, factory.createProxy());
            }
            return new HeadlessWindow(socket, listeners, proxies.get(QODEASSIST_PATHS.chat) as ChatService, proxies.get(QODEASSIST_PATHS.completion) as CompletionService);
        } catch (error) {
            socket.disconnect();
            throw error;
        } finally {
            clearTimeout(timer);
        }
    }

    /** The chat's events as the window hears them (batched per interval by the backend), until `stop` is called. */
    listen(chatId: string, listener: (events: ChatEvent[]) => void): () => void {
        this.listeners.set(chatId, listener);
        return () => this.listeners.delete(chatId);
    }

    /** The window goes away: the backend disposes its services. */
    close(): void {
        this.socket.disconnect();
    }
}

/** The socket as the one channel the services are multiplexed on, as Theia's WebSocketConnectionSource makes it. */
function mainChannel(socket: Socket): ForwardingChannel {
    const channel = new ForwardingChannel('any', () => socket.off('message', onMessage), () => {
        const buffer = new Uint8ArrayWriteBuffer();
        buffer.onCommit(data => socket.send(data));
        return buffer;
    });
    function onMessage(data: Uint8Array | ArrayBuffer): void {
        const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
        channel.onMessageEmitter.fire(() => new Uint8ArrayReadBuffer(bytes));
    }
    socket.on('message', onMessage);
    socket.on('disconnect', reason => channel.onCloseEmitter.fire({ reason }));
    return channel;
}
