import { ConfigFixture } from './config-fixture';

/** One agent per wire family, each on a provider instance that points at the fake server. */
export const FAKE_AGENTS = [
    { agent: 'fake-openai', base: 'openai-base', clientApi: 'openai_compatible', path: '/v1', key: 'fake_openai', protocol: 'openai-chat' },
    { agent: 'fake-claude', base: 'claude-base', clientApi: 'claude', path: '', key: 'fake_claude', protocol: 'anthropic-messages' },
    { agent: 'fake-responses', base: 'responses-base', clientApi: 'openai_responses', path: '/v1', key: 'fake_responses', protocol: 'openai-responses' },
    { agent: 'fake-gemini', base: 'gemini-base', clientApi: 'google', path: '/v1beta', key: 'fake_google', protocol: 'gemini' },
    { agent: 'fake-ollama', base: 'ollama-base', clientApi: 'ollama', path: '', key: undefined, protocol: 'ollama-chat' }
] as const;

/** Writes the fake providers and agents into a layer (project by default) and puts `chatAgent` first in the chat roster. */
export function writeFakeAgents(fixture: ConfigFixture, serverUrl: string, chatAgent = 'fake-openai', layer: 'project' | 'user' = 'project'): void {
    const write = (path: string, text: string) => layer === 'project' ? fixture.project_(path, text) : fixture.user_(path, text);
    for (const fake of FAKE_AGENTS) {
        write(`providers/${fake.agent}.toml`, [
            'schema_version = 1', `name = "${fake.agent}-provider"`, `client_api = "${fake.clientApi}"`, `url = "${serverUrl}${fake.path}"`,
            ...(fake.key ? [`api_key_ref = "${fake.key}"`] : []), ''
        ].join('\n'));
        write(`agents/${fake.agent}.toml`, [
            'schema_version = 1', `name = "${fake.agent}"`, `extends = "${fake.base}"`, `provider_instance = "${fake.agent}-provider"`,
            'model = "fake-model"', 'enable_thinking = false', ''
        ].join('\n'));
    }
    write('agents/rosters.toml', `schema_version = 1\n\n[chat]\nagents = ["${chatAgent}"]\n`);
    if (layer === 'project') {
        // The user lets these keys go to the fake server, as "allow it in your user settings" does (docs/ARCHITECTURE.md §7).
        const origins = Object.fromEntries(FAKE_AGENTS.filter(fake => fake.key).map(fake => [fake.key, [new URL(serverUrl).origin]]));
        fixture.user_('key_origins.json', `${JSON.stringify(origins, undefined, 2)}\n`);
    }
}

/** Environment for the fake keys, as a backend would see them. */
export const FAKE_KEYS: Record<string, string> = {
    FAKE_OPENAI_API_KEY: 'sk-fake-openai-0123456789',
    FAKE_CLAUDE_API_KEY: 'sk-ant-fake-0123456789',
    FAKE_RESPONSES_API_KEY: 'sk-fake-responses-0123456789',
    FAKE_GOOGLE_API_KEY: 'AIza-fake-0123456789'
};
