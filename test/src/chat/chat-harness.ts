import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
    ChatEvent, ChatFeature, ChatHost, ChatInput, ChatOwners, ChatStorage, ChatTurnOptions, ConfigurationProvider, EnvironmentSecretsStore, PermissionAnswer,
    PermissionRequest, QodeAssistRuntime, WorkspaceCheckpoints
} from '@qodeassist/core';
import { FAKE_KEYS } from '../config/fake-agents';
import { FakeProviderSuite, FakeProviderSuiteOptions, useFakeProviderSuite } from '../fake-provider/fake-provider-suite';

/** The events that end a request: every send ends with exactly one of them. */
const TERMINAL: ReadonlySet<string> = new Set(['Finished', 'Failed', 'Cancelled']);

export function isTerminal(event: ChatEvent): boolean {
    return TERMINAL.has(event.type);
}

/** Waits until `condition` holds; after `ms` it fails naming `what` did not happen. */
export async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!condition()) {
        if (Date.now() > deadline) {
            throw new Error(`timed out waiting for ${what}`);
        }
        await new Promise(resolve => setTimeout(resolve, 5));
    }
}

export interface ChatWindowOptions {
    /** The key store's environment; default every fake key. */
    keys?: Record<string, string>;
    /** Another window's runtime, as a second feature of the same connection has; default a runtime of its own. */
    runtime?: QodeAssistRuntime;
    /** Default: the suite's configuration for every workspace. */
    configurations?: ConfigurationProvider;
    /** Chat owners of its own, as a backend that started again has; default the test's shared owners (if the harness keeps any). */
    freshOwners?: boolean;
    /** Checkpoints below the test's home, as the IDE keeps them. */
    checkpoints?: boolean;
    /** What every tool permission prompt answers (each request is kept in `asked`); default deny. */
    permission?: PermissionAnswer;
    /** More of the host (an editor, the agent's permission prompts); events, notices and tool permissions stay recorded. */
    host?: Omit<ChatHost, 'onEvents' | 'onNotice' | 'requestToolPermission'>;
}

/** One IDE window over a chat feature: what its host was told, and ways to wait for it. */
export class ChatWindow {
    /** Every event, with the chat it was for, in order. */
    readonly received: Array<{ chatId: string; event: ChatEvent }> = [];
    /** Every event, in order. */
    readonly events: ChatEvent[] = [];
    readonly notices: string[] = [];
    /** The tool permission prompts, in order. */
    readonly asked: PermissionRequest[] = [];

    constructor(readonly feature: ChatFeature, readonly runtime: QodeAssistRuntime) { }

    /** The host that records into this window. */
    host(permission: PermissionAnswer, more: ChatWindowOptions['host']): ChatHost {
        return {
            ...more,
            onEvents: (chatId, events) => {
                this.received.push(...events.map(event => ({ chatId, event })));
                this.events.push(...events);
            },
            onNotice: (_chatId, message) => this.notices.push(message),
            requestToolPermission: async (_owner, request) => {
                this.asked.push(request);
                return permission;
            }
        };
    }

    /** Forgets what was told so far. */
    clear(): void {
        this.received.length = 0;
        this.events.length = 0;
    }

    eventsOf(chatId: string): ChatEvent[] {
        return this.received.filter(entry => entry.chatId === chatId).map(entry => entry.event);
    }

    /** The terminal events so far, of one chat or of all. */
    ends(chatId?: string): ChatEvent[] {
        return (chatId === undefined ? this.events : this.eventsOf(chatId)).filter(isTerminal);
    }

    /** The `count`-th terminal event (of one chat, or of all), once it arrived. */
    async ended(count = 1, chatId?: string, ms?: number): Promise<ChatEvent> {
        await until(() => this.ends(chatId).length >= count, `${count} answer(s) to end${chatId ? ` in chat ${chatId}` : ''}`, ms);
        return this.ends(chatId)[count - 1];
    }

    /** Sends and waits for that send's end; returns the terminal event. */
    async turn(chatId: string, input: ChatInput | string, options: ChatTurnOptions = {}, ms?: number): Promise<ChatEvent> {
        const before = this.ends(chatId).length;
        await this.feature.send(chatId, typeof input === 'string' ? { text: input, attachments: [] } : input, options);
        return this.ended(before + 1, chatId, ms);
    }
}

/**
 * The windows of one test, all with the same user home: each its own runtime and chat feature,
 * sharing the test's chat owners as the windows of one backend do. `dispose` closes them all and
 * waits for their last saves.
 */
export class ChatWindows {
    /** The backend's chat owners the windows share; absent: each feature keeps its own. */
    readonly owners: ChatOwners | undefined;
    private readonly opened: ChatWindow[] = [];

    /** `saveEveryMs`: how often a streaming answer is saved (2 s in the IDE); given, the windows share owners. */
    constructor(readonly home: string, private readonly configurations: ConfigurationProvider, private readonly saveEveryMs?: number) {
        this.owners = saveEveryMs === undefined ? undefined : new ChatOwners(saveEveryMs);
    }

    open(options: ChatWindowOptions = {}): ChatWindow {
        const runtime = options.runtime ?? new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(options.keys ?? FAKE_KEYS), userHome: this.home });
        const owners = options.freshOwners ? new ChatOwners(this.saveEveryMs) : this.owners;
        const feature = new ChatFeature({
            runtime, configurations: options.configurations ?? this.configurations, userHome: this.home,
            ...(owners ? { owners } : {}),
            ...(options.checkpoints ? { checkpoints: new WorkspaceCheckpoints(join(this.home, '.qodeassist', 'checkpoints')) } : {})
        });
        const window = new ChatWindow(feature, runtime);
        feature.setHost(window.host(options.permission ?? 'deny', options.host));
        this.opened.push(window);
        return window;
    }

    async dispose(): Promise<void> {
        for (const window of this.opened) {
            window.feature.dispose();
        }
        for (const window of this.opened) {
            await window.feature.saved();
        }
        new Set(this.opened.map(window => window.runtime)).forEach(runtime => runtime.dispose());
        this.opened.length = 0;
    }
}

export interface ChatHarnessOptions extends FakeProviderSuiteOptions {
    /** The start of each test's home folder name, e.g. `qodeassist-chat-feature-`. */
    homePrefix: string;
    /** Given: the windows of a test share chat owners that save a streaming answer this often. */
    saveEveryMs?: number;
}

/** A chat spec's fake provider suite, with a user home and windows of its own for each test. */
export interface ChatHarness extends FakeProviderSuite {
    readonly storage: ChatStorage;
    /** The test's user home (`~/.qodeassist/chats` is below it). */
    readonly home: string;
    /** The test's shared chat owners (with `saveEveryMs`). */
    readonly owners: ChatOwners | undefined;
    openWindow(options?: ChatWindowOptions): ChatWindow;
    /** Where the test's chats are saved. */
    chatsFolder(): string;
}

/**
 * Registers a chat spec's hooks in the calling `describe` (call it first): the fake provider
 * suite, then for each test a fresh user home; every window the test opened is closed, its
 * saves awaited and the home removed after it.
 */
export function useChatHarness(options: ChatHarnessOptions): ChatHarness {
    const suite = useFakeProviderSuite(options);
    let windows: ChatWindows | undefined;
    const current = (): ChatWindows => {
        if (!windows) {
            throw new Error('The chat harness is used outside a test: open windows in a test or a `beforeEach`.');
        }
        return windows;
    };

    beforeEach(() => {
        windows = new ChatWindows(mkdtempSync(join(tmpdir(), options.homePrefix)), suite.configurations, options.saveEveryMs);
    });
    afterEach(async () => {
        const ending = current();
        windows = undefined;
        await ending.dispose();
        rmSync(ending.home, { recursive: true, force: true });
    });

    return {
        server: suite.server,
        fixture: suite.fixture,
        get configuration() {
            return suite.configuration;
        },
        configurations: suite.configurations,
        storage: { location: 'user' },
        get home() {
            return current().home;
        },
        get owners() {
            return current().owners;
        },
        openWindow: windowOptions => current().open(windowOptions),
        chatsFolder: () => join(current().home, '.qodeassist', 'chats')
    };
}
