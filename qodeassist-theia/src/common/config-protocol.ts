import type { ConfigIssue } from '@qodeassist/core';
import { RpcServer } from '@theia/core/lib/common/messaging/proxy-factory';

export type { ConfigIssue };

export const QODEASSIST_CONFIG_PATH = '/services/qodeassist/config';

export interface ProviderSummary {
    name: string;
    clientApi: string;
    url: string;
    /** The secret ref, and the environment variable that can hold it. */
    keyRef: string;
    keyVariable: string;
    /** `set` somewhere QodeAssist reads keys from; `missing` when the API needs one or the file names one; `not-needed` for local servers without a ref. */
    keyState: 'set' | 'missing' | 'not-needed';
    /** Where the file is (an absolute path, or `bundled:…`). */
    file: string;
}

export interface AgentSummary {
    name: string;
    description?: string;
    provider: string;
    model: string;
    file: string;
    rosters: string[];
}

export interface ConfigOverview {
    providers: ProviderSummary[];
    agents: AgentSummary[];
    rosters: Record<string, string[]>;
    issues: ConfigIssue[];
    clientApis: string[];
    /** Where a new provider file goes. */
    projectFolder?: string;
}

export interface ProviderTest {
    status: 'reachable' | 'needs-key' | 'unreachable' | 'error';
    message: string;
    models: string[];
}

export const QodeAssistConfigService = Symbol('QodeAssistConfigService');

export interface QodeAssistConfigService extends RpcServer<QodeAssistConfigClient> {
    overview(workspacePath: string | undefined): Promise<ConfigOverview>;
    /** Lists the provider's models live: reachable with the list, or why not. */
    testProvider(workspacePath: string | undefined, provider: string): Promise<ProviderTest>;
    /** Stores a key in the user's secrets file (owner-only); returns a note when an environment variable overrides it. */
    setKey(ref: string, value: string): Promise<string | undefined>;
    clearKey(ref: string): Promise<void>;
    /** Writes `.qodeassist/providers/<name>.toml` in the workspace; an existing file is never replaced. */
    addProvider(workspacePath: string, provider: { name: string; clientApi: string; url?: string; keyRef?: string }): Promise<string>;
    /** Rewrites one roster in the workspace's `.qodeassist/agents/rosters.toml`, keeping the rest of the file. */
    saveRoster(workspacePath: string, pipeline: string, agents: string[]): Promise<void>;
    /** The request body the agent sends, rendered against a sample conversation. */
    agentPreview(workspacePath: string | undefined, agent: string): Promise<string>;
}

export interface QodeAssistConfigClient {
    /** The loaded configuration changed (a file was edited, here or elsewhere). */
    onConfigurationChanged(): void;
}
