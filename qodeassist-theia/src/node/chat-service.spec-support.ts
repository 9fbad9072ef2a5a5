import { ChatOwners, ConfigurationProvider, EnvironmentSecretsStore, QodeAssistRuntime } from '@qodeassist/core';
import { FAKE_KEYS } from '@qodeassist/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QodeAssistChatClient } from '../common/chat-protocol';
import { QodeAssistChatServiceImpl } from './chat-service-impl';

/** A chat service spec's connection: the service of each test, and more windows of the same backend. */
export interface ChatServiceHarness {
    /** The test's service (one window), with every fake key. */
    readonly service: QodeAssistChatServiceImpl;
    /** The test's user home. */
    readonly home: string;
    /** Another window's service in the same home, with every fake key; closed by the test. */
    connect(client: QodeAssistChatClient, owners?: ChatOwners): QodeAssistChatServiceImpl;
}

/**
 * Registers the hooks of a chat service spec in the calling `describe`, after its fake provider
 * suite: each test gets a fresh home and a service for `client`, whose last save is awaited and
 * whose home is removed after the test.
 */
export function useChatService(configurations: ConfigurationProvider, client: QodeAssistChatClient, homePrefix: string): ChatServiceHarness {
    let home: string | undefined;
    let service: QodeAssistChatServiceImpl | undefined;
    const current = <T>(value: T | undefined): T => {
        if (value === undefined) {
            throw new Error('The chat service harness is used outside a test: use it in a test or a `beforeEach`.');
        }
        return value;
    };
    const connect = (to: QodeAssistChatClient, owners?: ChatOwners): QodeAssistChatServiceImpl => {
        const userHome = current(home);
        const created = new QodeAssistChatServiceImpl(new QodeAssistRuntime({ secrets: new EnvironmentSecretsStore(FAKE_KEYS), userHome }), configurations, userHome, owners);
        created.setClient(to);
        return created;
    };

    beforeEach(() => {
        home = mkdtempSync(join(tmpdir(), homePrefix));
        service = connect(client);
    });
    afterEach(async () => {
        await current(service).saved();
        current(service).dispose();
        rmSync(current(home), { recursive: true, force: true });
        service = undefined;
        home = undefined;
    });

    return {
        get service() {
            return current(service);
        },
        get home() {
            return current(home);
        },
        connect
    };
}
