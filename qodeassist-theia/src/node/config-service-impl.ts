import {
    CLIENT_APIS, ClientApi, environmentVariableFor, listModels, needsKey, Pipeline, PIPELINES, providerFileText, QodeAssistError, SecretsStore,
    syntheticContext, toErrorInfo, withRoster, WritableSecretsStore
} from '@qodeassist/core';
import { inject, injectable } from '@theia/core/shared/inversify';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigOverview, ProviderTest, QodeAssistConfigClient, QodeAssistConfigService } from '../common/config-protocol';
import { ConfigurationProvider, QodeAssistConfiguration, QodeAssistSecretsStore, QodeAssistWritableSecrets } from './backend-symbols';

/** The configuration view's backend: what is loaded, live provider checks, keys, and the file edits it offers. */
@injectable()
export class QodeAssistConfigServiceImpl implements QodeAssistConfigService {
    private client: QodeAssistConfigClient | undefined;
    private readonly watching = new Map<string, () => void>();

    constructor(
        @inject(QodeAssistSecretsStore) private readonly secrets: SecretsStore,
        @inject(QodeAssistWritableSecrets) private readonly writableSecrets: WritableSecretsStore,
        @inject(QodeAssistConfiguration) private readonly configurations: ConfigurationProvider
    ) { }

    setClient(client: QodeAssistConfigClient | undefined): void {
        this.client = client;
    }

    async overview(workspacePath: string | undefined): Promise<ConfigOverview> {
        const service = this.configurations.forWorkspace(workspacePath);
        const key = workspacePath ?? '';
        if (!this.watching.has(key)) {
            this.watching.set(key, service.onDidChange(() => this.client?.onConfigurationChanged()));
        }
        const configuration = service.current;
        const providers = await Promise.all([...configuration.providers.values()].map(async provider => {
            const keyRef = provider.instance.api_key_ref ?? provider.instance.name;
            const hasKey = provider.instance.api_key_ref ? await this.secrets.get(keyRef).then(value => value !== undefined, () => false) : false;
            return {
                name: provider.instance.name, clientApi: provider.instance.client_api, url: provider.url, keyRef, keyVariable: environmentVariableFor(keyRef),
                keyState: hasKey ? 'set' as const : needsKey(provider.instance.client_api) || provider.instance.api_key_ref ? 'missing' as const : 'not-needed' as const,
                file: provider.file.label
            };
        }));
        const agents = [...configuration.agents.values()].map(agent => ({
            name: agent.name, description: agent.description, provider: agent.provider.instance.name, model: agent.model, file: agent.file.label,
            rosters: PIPELINES.filter(pipeline => configuration.rosters[pipeline].includes(agent.name))
        }));
        return {
            providers: providers.sort((a, b) => a.name.localeCompare(b.name)),
            agents: agents.sort((a, b) => a.name.localeCompare(b.name)),
            rosters: Object.fromEntries(PIPELINES.map(pipeline => [pipeline, [...configuration.rosters[pipeline]]])),
            issues: [...configuration.issues],
            clientApis: [...CLIENT_APIS],
            projectFolder: workspacePath ? join(workspacePath, '.qodeassist') : undefined
        };
    }

    async testProvider(workspacePath: string | undefined, name: string): Promise<ProviderTest> {
        const provider = this.configurations.forWorkspace(workspacePath).current.providers.get(name);
        if (!provider) {
            return { status: 'error', message: `There is no provider "${name}".`, models: [] };
        }
        const ref = provider.instance.api_key_ref;
        const apiKey = ref ? await this.secrets.get(ref) : undefined;
        if (!apiKey && needsKey(provider.instance.client_api)) {
            return { status: 'needs-key', message: `No key: set one here, or the environment variable ${environmentVariableFor(ref ?? name)} where QodeAssist runs.`, models: [] };
        }
        try {
            const models = await listModels(provider.instance.client_api as ClientApi, { baseUrl: provider.url, apiKey, timeoutMs: 10_000 });
            return { status: 'reachable', message: `${models.length} model(s)`, models: models.map(model => model.id) };
        } catch (error) {
            const info = toErrorInfo(error);
            const status = info.category === 'Auth' ? 'needs-key' : info.category === 'Network' ? 'unreachable' : 'error';
            return { status, message: info.message, models: [] };
        }
    }

    async setKey(ref: string, value: string): Promise<string | undefined> {
        if (!ref.trim() || !value.trim()) {
            throw new QodeAssistError({ category: 'Validation', message: 'Both the key name and the key are needed.' });
        }
        await this.writableSecrets.set(ref, value.trim());
        const variable = environmentVariableFor(ref);
        return process.env[variable]?.trim() ? `The environment variable ${variable} is set where QodeAssist runs; it wins over the stored key.` : undefined;
    }

    async clearKey(ref: string): Promise<void> {
        await this.writableSecrets.delete(ref);
    }

    async addProvider(workspacePath: string, provider: { name: string; clientApi: string; url?: string; keyRef?: string }): Promise<string> {
        const text = providerFileText({ name: provider.name, client_api: provider.clientApi, url: provider.url, api_key_ref: provider.keyRef });
        const folder = join(workspacePath, '.qodeassist', 'providers');
        const file = join(folder, `${provider.name.trim()}.toml`);
        if (existsSync(file)) {
            throw new QodeAssistError({ category: 'Validation', message: `${file} exists already; edit it, or pick another name.` });
        }
        await mkdir(folder, { recursive: true });
        await writeFile(file, text, { flag: 'wx' });
        return file;
    }

    async saveRoster(workspacePath: string, pipeline: string, agents: string[]): Promise<void> {
        const file = join(workspacePath, '.qodeassist', 'agents', 'rosters.toml');
        const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
        await mkdir(join(workspacePath, '.qodeassist', 'agents'), { recursive: true });
        await writeFile(file, withRoster(current, pipeline as Pipeline, agents));
    }

    async agentPreview(workspacePath: string | undefined, name: string): Promise<string> {
        const agent = this.configurations.forWorkspace(workspacePath).current.agents.get(name);
        if (!agent) {
            throw new QodeAssistError({ category: 'Validation', message: `There is no agent "${name}".` });
        }
        const context = syntheticContext();
        return JSON.stringify(agent.renderBody({ ...context, system_prompt: agent.renderSystemPrompt() || context.system_prompt }), undefined, 2);
    }

    dispose(): void {
        for (const stop of this.watching.values()) {
            stop();
        }
        this.watching.clear();
        this.client = undefined;
    }
}
