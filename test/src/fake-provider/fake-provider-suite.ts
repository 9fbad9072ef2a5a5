import { ConfigurationProvider, ConfigurationService } from '@qodeassist/core';
import { ConfigFixture } from '../config/config-fixture';
import { writeFakeAgents } from '../config/fake-agents';
import { FakeProviderOptions, FakeProviderServer } from './fake-provider-server';

export interface FakeProviderSuiteOptions {
    server?: FakeProviderOptions;
    /** The agent put first in the chat roster (`writeFakeAgents`). */
    chatAgent?: string;
    /** Where the fake agents go: `user` keeps them in a workspace that is not trusted. */
    layer?: 'project' | 'user';
    /** The suite's own files (agents, rosters, workspace files), written once before the configuration loads. */
    prepare?: (fixture: ConfigFixture, serverUrl: string) => void;
}

/** What a suite over the fake provider shares: one server, one configuration, for all its tests. */
export interface FakeProviderSuite {
    readonly server: FakeProviderServer;
    readonly fixture: ConfigFixture;
    /** The fixture's configuration, loaded once the server runs (in `before`). */
    readonly configuration: ConfigurationService;
    /** Every workspace gets `configuration`, as a backend with one trusted workspace does. */
    readonly configurations: ConfigurationProvider;
}

/**
 * Registers the hooks of a spec over the fake provider in the calling `describe`: the server
 * starts and the fake agents are written before the tests, each test begins with a server that
 * remembers nothing, and server, configuration and folders are gone after. Call it first in the
 * `describe`, so a spec's own `beforeEach` (which may queue scenarios) runs after the reset.
 */
export function useFakeProviderSuite(options: FakeProviderSuiteOptions = {}): FakeProviderSuite {
    const server = new FakeProviderServer(options.server);
    const fixture = new ConfigFixture();
    let configuration: ConfigurationService | undefined;
    const loaded = (): ConfigurationService => {
        if (!configuration) {
            throw new Error('The fake provider suite\'s configuration is read before its `before` hook ran: read it inside a hook or a test.');
        }
        return configuration;
    };

    before(async () => {
        await server.start();
        writeFakeAgents(fixture, server.url, options.chatAgent, options.layer);
        options.prepare?.(fixture, server.url);
        configuration = new ConfigurationService(fixture.roots);
    });
    after(async () => {
        configuration?.dispose();
        await server.stop();
        fixture.dispose();
    });
    beforeEach(() => server.reset());

    return {
        server,
        fixture,
        get configuration() {
            return loaded();
        },
        configurations: { forWorkspace: () => loaded() }
    };
}
