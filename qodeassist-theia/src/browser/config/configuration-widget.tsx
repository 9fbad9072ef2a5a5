import { CommandRegistry, Emitter, Event, MessageService, nls, PreferenceScope, PreferenceService, QuickInputService } from '@theia/core';
import { codicon, open, OpenerService, ReactWidget } from '@theia/core/lib/browser';
import URI from '@theia/core/lib/common/uri';
import { inject, injectable, postConstruct } from '@theia/core/shared/inversify';
import * as React from '@theia/core/shared/react';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import { QodeAssistProjectTrust } from '../trust/project-trust';
import { ProjectTrustNotice } from '../trust/project-trust-notice';
import { ConfigIssue, ConfigOverview, ProviderTest, QodeAssistConfigClient, QodeAssistConfigService, RoleSummary } from '../../common/config-protocol';
import { McpServerState, McpServerStatus, QodeAssistMcpService } from '../../common/mcp-protocol';
import { QodeAssistRefactorService, SavedInstruction } from '../../common/refactor-protocol';
import { QodeAssistPreferences, skillSettingsOf } from '../qodeassist-preferences';

/** Hears the backend say the configuration changed; the view refreshes. */
@injectable()
export class ConfigClientImpl implements QodeAssistConfigClient {
    private readonly changedEmitter = new Emitter<void>();
    readonly onDidChange: Event<void> = this.changedEmitter.event;

    onConfigurationChanged(): void {
        this.changedEmitter.fire();
    }
}

interface NewProviderForm {
    name: string;
    clientApi: string;
    url: string;
    keyRef: string;
}

const PIPELINE_LABELS: Record<string, string> = { chat: 'Chat', completion: 'Completion', refactor: 'Refactor', compression: 'Compression' };

/**
 * The QodeAssist configuration view: problems with their file and line, providers (key state,
 * live test with the model list, set or clear a key, add one), agents (source, rosters, the
 * request body they send), rosters (reorder), refactor instructions and MCP. Every edit writes
 * the configuration files; the loader's watcher picks them up and the view follows.
 */
@injectable()
export class ConfigurationWidget extends ReactWidget {
    static readonly ID = 'qodeassist-configuration';
    static readonly LABEL = 'QodeAssist Configuration';

    @inject(QodeAssistConfigService) protected readonly service: QodeAssistConfigService;
    @inject(ConfigClientImpl) protected readonly client: ConfigClientImpl;
    @inject(QodeAssistRefactorService) protected readonly refactor: QodeAssistRefactorService;
    @inject(QodeAssistMcpService) protected readonly mcp: QodeAssistMcpService;
    @inject(WorkspaceService) protected readonly workspace: WorkspaceService;
    @inject(OpenerService) protected readonly openers: OpenerService;
    @inject(QuickInputService) protected readonly quickInput: QuickInputService;
    @inject(MessageService) protected readonly messages: MessageService;
    @inject(CommandRegistry) protected readonly commands: CommandRegistry;
    @inject(PreferenceService) protected readonly preferenceService: PreferenceService;
    @inject(QodeAssistPreferences) protected readonly preferences: QodeAssistPreferences;
    @inject(QodeAssistProjectTrust) protected readonly projectTrust: QodeAssistProjectTrust;

    protected overview: ConfigOverview | undefined;
    protected tests: Record<string, ProviderTest | 'testing'> = {};
    protected preview: { agent: string; kind: 'body' | 'profile'; text: string } | undefined;
    protected rosters: Record<string, string[]> = {};
    protected instructions: SavedInstruction[] = [];
    protected mcpServer: McpServerStatus | undefined;
    protected mcpServers: McpServerState[] = [];
    protected form: NewProviderForm = { name: '', clientApi: 'openai_compatible', url: '', keyRef: '' };
    protected error: string | undefined;

    @postConstruct()
    protected init(): void {
        this.id = ConfigurationWidget.ID;
        this.title.label = nls.localize('qodeassist/config/title', ConfigurationWidget.LABEL);
        this.title.caption = this.title.label;
        this.title.iconClass = codicon('settings-gear');
        this.title.closable = true;
        this.addClass('qa-config');
        this.toDispose.push(this.client.onDidChange(() => void this.refresh()));
        this.toDispose.push(this.projectTrust.onDidChange(() => void this.refresh()));
        this.toDispose.push(this.preferences.onPreferenceChanged(change => {
            if (change.preferenceName === 'qodeassist.tools.disabled') {
                this.toolChoices.clear();
                this.update();
            }
            if (change.preferenceName === 'qodeassist.skills.enabled' || change.preferenceName === 'qodeassist.skills.folders') {
                void this.refresh();
            }
        }));
        // The skills list follows the skills preferences: read them first.
        void Promise.all([this.workspace.ready, this.preferences.ready]).then(() => this.refresh());
    }

    protected get workspacePath(): string | undefined {
        return this.workspace.tryGetRoots()[0]?.resource.path.fsPath();
    }

    /** Counts refreshes: an earlier one that answers late is not shown over a newer one. */
    protected refreshes = 0;

    async refresh(): Promise<void> {
        const generation = ++this.refreshes;
        try {
            const [overview, instructions, server, hub] = await Promise.all([
                this.service.overview(this.workspacePath, skillSettingsOf(this.preferences)),
                this.refactor.listInstructions(this.workspacePath),
                this.mcp.serverStatus(),
                this.mcp.hubState(this.workspacePath)
            ]);
            if (generation !== this.refreshes) {
                return;
            }
            this.overview = overview;
            this.rosters = structuredClone(overview.rosters);
            this.instructions = instructions.instructions;
            this.mcpServer = server;
            this.mcpServers = hub.servers;
            this.error = undefined;
        } catch (error) {
            if (generation !== this.refreshes) {
                return;
            }
            this.error = error instanceof Error ? error.message : String(error);
        }
        this.update();
    }

    protected async run(work: () => Promise<unknown>): Promise<void> {
        try {
            await work();
        } catch (error) {
            this.messages.error(error instanceof Error ? error.message : String(error));
        }
        await this.refresh();
    }

    /** Shows an agent's effective profile or rendered request body below the table; the same button again hides it. */
    protected togglePreview(agent: string, kind: 'body' | 'profile'): void {
        if (this.preview?.agent === agent && this.preview.kind === kind) {
            this.preview = undefined;
            this.update();
            return;
        }
        const text = kind === 'body' ? this.service.agentPreview(this.workspacePath, agent) : this.service.agentProfile(this.workspacePath, agent);
        void text.then(value => {
            this.preview = { agent, kind, text: value };
            this.update();
        });
    }

    protected openFile(file: string, line?: number): void {
        if (!file.startsWith('/')) {
            this.messages.info(nls.localize('qodeassist/config/bundled', '{0} is bundled with QodeAssist; copy it into .qodeassist/ to change it.', file));
            return;
        }
        void open(this.openers, URI.fromFilePath(file), line ? { selection: { start: { line: line - 1, character: 0 }, end: { line: line - 1, character: 0 } } } : undefined);
    }

    // ---- actions ----

    protected async test(provider: string): Promise<void> {
        this.tests = { ...this.tests, [provider]: 'testing' };
        this.update();
        const result = await this.service.testProvider(this.workspacePath, provider);
        this.tests = { ...this.tests, [provider]: result };
        this.update();
    }

    protected async setKey(ref: string, variable: string): Promise<void> {
        const value = await this.quickInput.input({
            title: nls.localize('qodeassist/config/setKeyTitle', 'API key "{0}"', ref), password: true,
            prompt: nls.localize('qodeassist/config/setKeyPrompt', 'Stored in the OS keyring of the machine running QodeAssist (~/.qodeassist/secrets.json, owner-only, where it has none); {0} wins when set.', variable)
        });
        if (value?.trim()) {
            await this.run(async () => {
                const note = await this.service.setKey(ref, value);
                if (note) {
                    this.messages.warn(note);
                }
            });
        }
    }

    protected async addProvider(): Promise<void> {
        const workspace = this.workspacePath;
        if (!workspace) {
            this.messages.warn(nls.localize('qodeassist/config/noWorkspace', 'Open a folder first: providers are added to its .qodeassist/.'));
            return;
        }
        await this.run(async () => {
            const file = await this.service.addProvider(workspace, { ...this.form, keyRef: this.form.keyRef || undefined, url: this.form.url || undefined });
            this.messages.info(nls.localize('qodeassist/config/added', 'Added {0}.', file));
            this.form = { name: '', clientApi: this.form.clientApi, url: '', keyRef: '' };
        });
    }

    protected move(pipeline: string, index: number, delta: number): void {
        const list = [...this.rosters[pipeline] ?? []];
        const target = index + delta;
        if (target < 0 || target >= list.length) {
            return;
        }
        [list[index], list[target]] = [list[target], list[index]];
        this.rosters = { ...this.rosters, [pipeline]: list };
        this.update();
    }

    protected async saveRoster(pipeline: string): Promise<void> {
        const workspace = this.workspacePath;
        if (workspace) {
            await this.run(() => this.service.saveRoster(workspace, pipeline, this.rosters[pipeline] ?? []));
        }
    }

    protected async newInstruction(): Promise<void> {
        const name = await this.quickInput.input({ title: nls.localize('qodeassist/config/instructionName', 'New refactor instruction: name') });
        if (!name?.trim()) {
            return;
        }
        const body = await this.quickInput.input({ title: nls.localize('qodeassist/config/instructionBody', 'New refactor instruction: what it asks for') });
        if (body?.trim()) {
            await this.run(() => this.refactor.saveInstruction(this.workspacePath, { name, body }, 'user'));
        }
    }

    // ---- rendering ----

    protected render(): React.ReactNode {
        const overview = this.overview;
        if (!overview) {
            return <div className='qa-config-loading'>{this.error ?? nls.localize('qodeassist/config/loading', 'Loading the configuration…')}</div>;
        }
        return <div className='qa-config-root'>
            <div className='qa-config-toolbar'>
                <button className='theia-button secondary' data-action='refresh' title={nls.localize('qodeassist/config/refreshHint', 'Read everything again (skills and MCP states are not watched here)')}
                    onClick={() => void this.refresh()}><i className={codicon('refresh')} /> {nls.localize('qodeassist/config/refresh', 'Refresh')}</button>
            </div>
            <ProjectTrustNotice state={overview.projectTrust} trust={() => void this.projectTrust.requestTrust()} />
            {this.renderIssues(overview.issues)}
            {this.renderProviders(overview)}
            {this.renderAgents(overview)}
            {this.renderRosters(overview)}
            {this.renderRoles(overview)}
            {this.renderTools(overview)}
            {this.renderSkills(overview)}
            {this.renderInstructions()}
            {this.renderMcp()}
        </div>;
    }

    protected renderIssues(issues: ConfigIssue[]): React.ReactNode {
        return <section className='qa-config-section' data-section='issues'>
            <h2>{nls.localize('qodeassist/config/problems', 'Problems')}</h2>
            {issues.length === 0
                ? <div className='qa-config-ok'><i className={codicon('check')} /> {nls.localize('qodeassist/config/noProblems', 'The configuration loads without problems.')}</div>
                : <ul className='qa-config-issues'>{issues.map((issue, index) => <li key={index} className='qa-config-issue' data-severity={issue.severity}>
                    <i className={codicon(issue.severity === 'error' ? 'error' : 'info')} />
                    <span className='qa-config-where'>{issue.file}{issue.line !== undefined ? `:${issue.line}` : ''}{issue.field ? ` [${issue.field}]` : ''}</span>
                    <span className='qa-config-message'>{issue.message}{issue.fix ? ` — ${issue.fix}` : ''}</span>
                    <button className='theia-button secondary' data-action='open-issue' onClick={() => this.openFile(issue.file, issue.line)}>{nls.localize('qodeassist/config/openFile', 'Open file')}</button>
                </li>)}</ul>}
        </section>;
    }

    protected renderProviders(overview: ConfigOverview): React.ReactNode {
        return <section className='qa-config-section' data-section='providers'>
            <h2>{nls.localize('qodeassist/config/providers', 'Providers')}</h2>
            <table className='qa-config-table'>
                <thead><tr><th>Name</th><th>API</th><th>URL</th><th>Key</th><th>Status</th><th /></tr></thead>
                <tbody>{overview.providers.map(provider => {
                    const test = this.tests[provider.name];
                    return <tr key={provider.name} data-provider={provider.name}>
                        <td>{provider.name}</td>
                        <td>{provider.clientApi}</td>
                        <td className='qa-config-url'>{provider.url}</td>
                        <td data-key-state={provider.keyState} title={provider.keyVariable}>{provider.keyState === 'set' ? '✓ set' : provider.keyState === 'missing' ? `missing (${provider.keyVariable})` : '—'}</td>
                        <td className='qa-config-status' data-status={test === undefined ? '' : test === 'testing' ? 'testing' : test.status}>
                            {test === 'testing' ? nls.localize('qodeassist/config/testing', 'testing…') : test ? `${test.status}: ${test.message}` : ''}
                            {test && test !== 'testing' && test.models.length > 0 && <select className='theia-select qa-config-models'>{test.models.map(model => <option key={model}>{model}</option>)}</select>}
                        </td>
                        <td className='qa-config-actions'>
                            <button className='theia-button secondary' data-action='test' onClick={() => void this.test(provider.name)}>{nls.localize('qodeassist/config/test', 'Test connection')}</button>
                            <button className='theia-button secondary' data-action='set-key' onClick={() => void this.setKey(provider.keyRef, provider.keyVariable)}>{nls.localize('qodeassist/config/setKey', 'Set key')}</button>
                            {provider.keyState === 'set' && <button className='theia-button secondary' data-action='clear-key' onClick={() => void this.run(() => this.service.clearKey(provider.keyRef))}>{nls.localize('qodeassist/config/clearKey', 'Clear key')}</button>}
                            <button className='qa-icon-button' title={provider.file} onClick={() => this.openFile(provider.file)}><i className={codicon('go-to-file')} /></button>
                        </td>
                    </tr>;
                })}</tbody>
            </table>
            <div className='qa-config-form' data-form='provider'>
                <input className='theia-input' placeholder='name' data-field='name' value={this.form.name} onChange={event => { this.form = { ...this.form, name: event.target.value }; this.update(); }} />
                <select className='theia-select' data-field='client-api' value={this.form.clientApi} onChange={event => { this.form = { ...this.form, clientApi: event.target.value }; this.update(); }}>
                    {overview.clientApis.map(api => <option key={api} value={api}>{api}</option>)}
                </select>
                <input className='theia-input' placeholder='url (empty: the API default)' data-field='url' value={this.form.url} onChange={event => { this.form = { ...this.form, url: event.target.value }; this.update(); }} />
                <input className='theia-input' placeholder='key name (api_key_ref)' data-field='key-ref' value={this.form.keyRef} onChange={event => { this.form = { ...this.form, keyRef: event.target.value }; this.update(); }} />
                <button className='theia-button' data-action='add-provider' disabled={!this.form.name.trim()} onClick={() => void this.addProvider()}>{nls.localize('qodeassist/config/addProvider', 'Add provider')}</button>
            </div>
        </section>;
    }

    protected renderAgents(overview: ConfigOverview): React.ReactNode {
        return <section className='qa-config-section' data-section='agents'>
            <h2>{nls.localize('qodeassist/config/agents', 'Agents')}</h2>
            <table className='qa-config-table'>
                <thead><tr><th>Name</th><th>Provider</th><th>Model</th><th>Rosters</th><th /></tr></thead>
                <tbody>{overview.agents.map(agent => <React.Fragment key={agent.name}><tr data-agent={agent.name} title={agent.description}>
                    <td>{agent.name}</td><td>{agent.provider}</td>
                    <td><input className='theia-input qa-config-model' data-field='model' title={nls.localize('qodeassist/config/modelHint', 'The model this agent uses; a change is kept in ~/.qodeassist/agent_models.json (empty: back to the profile\'s)')}
                        key={`${agent.name}:${agent.model}`} defaultValue={agent.model}
                        onKeyDown={event => event.key === 'Enter' && event.currentTarget.blur()}
                        onBlur={event => {
                            const model = event.target.value.trim();
                            if (model !== agent.model) {
                                void this.run(() => this.service.setModelOverride(this.workspacePath, agent.name, model));
                            }
                        }} />
                        {overview.modelOverrides[agent.name] && <span className='qa-config-scope' data-override> override</span>}
                    </td>
                    <td>{agent.rosters.join(', ')}</td>
                    <td className='qa-config-actions'>
                        <button className='theia-button secondary' data-action='profile' onClick={() => this.togglePreview(agent.name, 'profile')}>
                            {nls.localize('qodeassist/config/profile', 'Profile')}</button>
                        <button className='theia-button secondary' data-action='preview' onClick={() => this.togglePreview(agent.name, 'body')}>
                            {nls.localize('qodeassist/config/body', 'Request body')}</button>
                        <button className='qa-icon-button' title={agent.file} onClick={() => this.openFile(agent.file)}><i className={codicon('go-to-file')} /></button>
                    </td>
                </tr>
                {this.preview?.agent === agent.name && <tr className='qa-config-preview-row'><td colSpan={5}>
                    <pre className='qa-config-preview' data-agent={this.preview.agent} data-kind={this.preview.kind}>{this.preview.text}</pre>
                </td></tr>}
                </React.Fragment>)}</tbody>
            </table>
        </section>;
    }

    protected renderRosters(overview: ConfigOverview): React.ReactNode {
        return <section className='qa-config-section' data-section='rosters'>
            <h2>{nls.localize('qodeassist/config/rosters', 'Rosters')}</h2>
            <div className='qa-config-rosters'>{Object.keys(overview.rosters).map(pipeline => {
                const list = this.rosters[pipeline] ?? [];
                const changed = JSON.stringify(list) !== JSON.stringify(overview.rosters[pipeline]);
                return <div key={pipeline} className='qa-config-roster' data-roster={pipeline}>
                    <h3>{PIPELINE_LABELS[pipeline] ?? pipeline}</h3>
                    <ol>{list.map((agent, index) => <li key={agent} data-agent={agent}>
                        <span>{agent}</span>
                        <button className='qa-icon-button' data-action='up' title='Earlier' disabled={index === 0} onClick={() => this.move(pipeline, index, -1)}><i className={codicon('arrow-up')} /></button>
                        <button className='qa-icon-button' data-action='down' title='Later' disabled={index === list.length - 1} onClick={() => this.move(pipeline, index, 1)}><i className={codicon('arrow-down')} /></button>
                    </li>)}</ol>
                    {changed && <button className='theia-button' data-action='save-roster' onClick={() => void this.saveRoster(pipeline)}>{nls.localize('qodeassist/config/saveRoster', 'Save order')}</button>}
                </div>;
            })}</div>
        </section>;
    }

    protected async newRole(base?: RoleSummary): Promise<void> {
        const workspace = this.workspacePath;
        if (!workspace) {
            this.messages.warn(nls.localize('qodeassist/config/noWorkspaceRole', 'Open a folder first: roles are saved in its .qodeassist/roles.'));
            return;
        }
        const id = base?.id ?? await this.quickInput.input({ title: nls.localize('qodeassist/config/roleId', 'New role: id (lowercase, e.g. "security-reviewer")') });
        if (!id?.trim()) {
            return;
        }
        const name = base?.name ?? await this.quickInput.input({ title: nls.localize('qodeassist/config/roleName', 'New role: name'), value: id });
        const systemPrompt = base?.systemPrompt ?? await this.quickInput.input({ title: nls.localize('qodeassist/config/rolePrompt', 'New role: what the model should be (its system prompt)') });
        if (!name?.trim() || !systemPrompt?.trim()) {
            return;
        }
        await this.run(async () => this.openFile(await this.service.saveRole(workspace, { id, name, description: base?.description ?? '', systemPrompt })));
    }

    protected renderRoles(overview: ConfigOverview): React.ReactNode {
        return <section className='qa-config-section' data-section='roles'>
            <h2>{nls.localize('qodeassist/config/roles', 'Roles')}</h2>
            <ul className='qa-config-list'>{overview.roles.map(role => <li key={role.id} data-role={role.id}>
                <span className='qa-config-name'>{role.name}</span> <span className='qa-config-scope'>{role.bundled ? 'bundled' : role.file}</span>
                <span className='qa-config-body'>{role.description || role.systemPrompt}</span>
                {role.bundled
                    ? <button className='theia-button secondary' data-action='copy-role' onClick={() => void this.newRole(role)}>{nls.localize('qodeassist/config/copyRole', 'Copy to project')}</button>
                    : <>
                        <button className='qa-icon-button' data-action='edit' title='Edit (opens its file)' onClick={() => this.openFile(role.file)}><i className={codicon('edit')} /></button>
                        <button className='qa-icon-button' data-action='delete' title='Delete' onClick={() => void this.run(() => this.service.deleteRole(this.workspacePath, role.id))}><i className={codicon('trash')} /></button>
                    </>}
            </li>)}</ul>
            <button className='theia-button secondary' data-action='new-role' onClick={() => void this.newRole()}>{nls.localize('qodeassist/config/newRole', 'New role…')}</button>
        </section>;
    }

    /** Turns a tool on or off for this workspace (`qodeassist.tools.disabled`, workspace scope when a folder is open). */
    protected async setToolEnabled(name: string, enabled: boolean): Promise<void> {
        // Shown at once; the preference follows.
        this.toolChoices.set(name, enabled);
        this.update();
        const disabled = new Set(this.preferences['qodeassist.tools.disabled']);
        if (enabled) {
            disabled.delete(name);
        } else {
            disabled.add(name);
        }
        await this.preferenceService.set('qodeassist.tools.disabled', [...disabled].sort(), this.workspacePath ? PreferenceScope.Workspace : PreferenceScope.User);
    }

    /** Choices made here that the preference does not show yet. */
    protected readonly toolChoices = new Map<string, boolean>();

    protected renderTools(overview: ConfigOverview): React.ReactNode {
        const disabled = new Set(this.preferences['qodeassist.tools.disabled']);
        const enabled = (name: string) => this.toolChoices.get(name) ?? !disabled.has(name);
        return <section className='qa-config-section' data-section='tools'>
            <h2>{nls.localize('qodeassist/config/tools', 'Tools')}</h2>
            <table className='qa-config-table'>
                <thead><tr><th>On</th><th>Tool</th><th>Permission</th><th>From</th><th>What it does</th></tr></thead>
                <tbody>{overview.tools.map(tool => <tr key={tool.name} data-tool={tool.name}>
                    <td><input type='checkbox' data-action='toggle-tool' checked={enabled(tool.name)} onChange={event => void this.setToolEnabled(tool.name, event.target.checked)} /></td>
                    <td className='qa-config-name'>{tool.name}</td>
                    <td className='qa-config-nowrap' title={tool.permission === 'read' ? 'runs without asking' : 'asks before it runs'}>{tool.permission}</td>
                    <td className='qa-config-nowrap'>{tool.source}</td>
                    <td className='qa-config-body'>{tool.description}</td>
                </tr>)}</tbody>
            </table>
        </section>;
    }

    protected renderSkills(overview: ConfigOverview): React.ReactNode {
        return <section className='qa-config-section' data-section='skills'>
            <h2>{nls.localize('qodeassist/config/skills', 'Skills')}</h2>
            {overview.skillsOff && <div className='qa-config-scope' data-skills-off>
                {nls.localize('qodeassist/config/skillsOff', 'Skills are turned off (preference qodeassist.skills.enabled): the chat offers none.')}
            </div>}
            {!overview.skillsOff && overview.skills.length === 0 && overview.skillIssues.length === 0 && <div className='qa-config-scope'>
                {nls.localize('qodeassist/config/noSkills',
                    'No skills: add SKILL.md folders to .qodeassist/skills or .claude/skills (workspace or home), or name more folders in qodeassist.skills.folders.')}
            </div>}
            <ul className='qa-config-list'>{overview.skills.map(skill => <li key={skill.path} data-skill={skill.name}>
                <span className='qa-config-name'>/{skill.name}</span> <span className='qa-config-scope'>{skill.scope}{skill.alwaysOn ? ', always on' : ''}</span>
                <span className='qa-config-body'>{skill.description}</span>
                <button className='qa-icon-button' title={skill.path} onClick={() => this.openFile(skill.path)}><i className={codicon('go-to-file')} /></button>
            </li>)}</ul>
            {overview.skillIssues.length > 0 && <ul className='qa-config-issues'>{overview.skillIssues.map(issue => <li key={issue.path} className='qa-config-issue' data-severity='error'>
                <i className={codicon('error')} /> <span className='qa-config-where'>{issue.path}</span> <span className='qa-config-message'>{issue.message}</span>
                <button className='theia-button secondary' onClick={() => this.openFile(issue.path)}>{nls.localize('qodeassist/config/openFile', 'Open file')}</button>
            </li>)}</ul>}
        </section>;
    }

    protected renderInstructions(): React.ReactNode {
        return <section className='qa-config-section' data-section='instructions'>
            <h2>{nls.localize('qodeassist/config/instructions', 'Refactor instructions')}</h2>
            <ul className='qa-config-list'>{this.instructions.map(instruction => <li key={`${instruction.scope}:${instruction.id}`} data-instruction={instruction.name}>
                <span className='qa-config-name'>{instruction.name}</span> <span className='qa-config-scope'>{instruction.scope}</span>
                <span className='qa-config-body'>{instruction.body}</span>
                <button className='qa-icon-button' data-action='edit' title='Edit (opens its file)' onClick={() => this.openFile(instruction.file)}><i className={codicon('edit')} /></button>
                <button className='qa-icon-button' data-action='duplicate' title='Duplicate' onClick={() => void this.run(() => this.refactor.duplicateInstruction(this.workspacePath, instruction.id, instruction.scope))}><i className={codicon('copy')} /></button>
                <button className='qa-icon-button' data-action='delete' title='Delete' onClick={() => void this.run(() => this.refactor.deleteInstruction(this.workspacePath, instruction.id, instruction.scope))}><i className={codicon('trash')} /></button>
            </li>)}</ul>
            <button className='theia-button secondary' data-action='new-instruction' onClick={() => void this.newInstruction()}>{nls.localize('qodeassist/config/newInstruction', 'New instruction…')}</button>
        </section>;
    }

    protected renderMcp(): React.ReactNode {
        const server = this.mcpServer;
        return <section className='qa-config-section' data-section='mcp'>
            <h2>MCP</h2>
            <div className='qa-config-mcp-server'>
                {server?.running
                    ? nls.localize('qodeassist/config/mcpRunning', 'Server: running at {0} ({1} client(s)).', server.url ?? '', server.sessions)
                    : server?.error ?? nls.localize('qodeassist/config/mcpOff', 'Server: off (qodeassist.mcp.server.enabled).')}
                <button className='theia-button secondary' onClick={() => void this.commands.executeCommand('qodeassist.mcp.connectClients')}>{nls.localize('qodeassist/config/mcpConnect', 'Connect clients…')}</button>
            </div>
            <ul className='qa-config-list'>{this.mcpServers.map(state => <li key={state.name} data-mcp-server={state.name} data-status={state.status}>
                <span className='qa-config-name'>{state.name}</span> {state.status}{state.status === 'ready' ? ` · ${state.tools.length} tools` : ''}{state.error ? ` — ${state.error}` : ''}
                <button className='theia-button secondary' onClick={() => void this.run(() => this.mcp.reconnect(this.workspacePath, state.name))}>{nls.localize('qodeassist/config/reconnect', 'Reconnect')}</button>
            </li>)}</ul>
        </section>;
    }
}
