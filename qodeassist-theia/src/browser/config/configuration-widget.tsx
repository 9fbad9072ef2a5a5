import { CommandRegistry, MessageService, nls, PreferenceScope, PreferenceService, QuickInputService } from '@theia/core';
import { codicon, Message, open, OpenerService, ReactWidget } from '@theia/core/lib/browser';
import URI from '@theia/core/lib/common/uri';
import { inject, injectable, postConstruct } from '@theia/core/shared/inversify';
import * as React from '@theia/core/shared/react';
import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';
import { QodeAssistProjectTrust } from '../trust/project-trust';
import { ProjectTrustNotice } from '../trust/project-trust-notice';
import { AcpAgentTest, ConfigOverview, ConsentDetails, ProviderTest, QodeAssistConfigService, RoleSummary } from '../../common/config-protocol';
import { McpServerState, McpServerStatus, QodeAssistMcpService } from '../../common/mcp-protocol';
import { QodeAssistRefactorService, SavedInstruction } from '../../common/refactor-protocol';
import { QodeAssistPreferences, skillSettingsOf } from '../qodeassist-preferences';
import { ConfigurationTarget, focusPlaceOf } from '../shared/configuration-target';
import { displayPath, PathRoot } from './display-path';
import { ExternalAgentsSection } from './external-agents-section';
import { ProblemsSection } from './problems-section';
import { FocusRequest, focusRef, NewProviderForm, ProvidersSection } from './providers-section';
import { AcpAgentConsentDialog } from '../mcp/mcp-dialogs';
import { McpServersList } from './mcp-servers-section';
import { SkillsSection } from './skills-section';
import { ConfigClientImpl } from './config-client';

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
    protected agentTests: Record<string, AcpAgentTest | 'testing'> = {};
    protected preview: { agent: string; kind: 'body' | 'profile'; text: string } | undefined;
    protected rosters: Record<string, string[]> = {};
    protected instructions: SavedInstruction[] = [];
    protected mcpServer: McpServerStatus | undefined;
    protected mcpServers: McpServerState[] = [];
    protected form: NewProviderForm = { name: '', clientApi: 'openai_compatible', url: '', keyRef: '' };
    protected error: string | undefined;
    /** The place an error's "Open Settings" asked for: kept highlighted, focused once it is rendered. */
    protected target: ConfigurationTarget | undefined;
    protected focusTarget: ((element: HTMLElement | null) => void) | undefined;

    @postConstruct()
    protected init(): void {
        this.id = ConfigurationWidget.ID;
        this.title.label = nls.localize('qodeassist/config/title', ConfigurationWidget.LABEL);
        this.title.caption = this.title.label;
        this.title.iconClass = codicon('settings-gear');
        this.title.closable = true;
        this.node.tabIndex = -1;
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

    protected override onActivateRequest(msg: Message): void {
        super.onActivateRequest(msg);
        if (!this.node.contains(document.activeElement)) {
            this.node.focus();
        }
    }

    /** Brings a place into sight and focuses it (a provider's Set key button for an Auth error), once the view shows it. */
    reveal(target: ConfigurationTarget): void {
        this.target = target;
        let focused = false;
        // A new function each time: React calls a changed ref again, so a second reveal of the same place focuses it again.
        this.focusTarget = element => {
            if (element && !focused) {
                focused = true;
                element.scrollIntoView({ block: 'center' });
                element.focus();
            }
        };
        this.update();
    }

    /** What the render focuses: the target resolved against the providers the view lists. */
    protected focusRequest(overview: ConfigOverview): FocusRequest | undefined {
        return this.target && this.focusTarget ? { place: focusPlaceOf(this.target, overview.providers.map(provider => provider.name)), ref: this.focusTarget } : undefined;
    }

    protected get roots(): readonly PathRoot[] {
        return this.overview?.pathRoots ?? [];
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
            this.messages.info(nls.localize('qodeassist/config/bundled', '{0} comes with QodeAssist; copy it into .qodeassist/ to change it.', file));
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

    /** The consent dialog for a project's external agent; the backend records it only if the file's entry is still the one shown. */
    protected async consentToExternalAgent(consent: ConsentDetails): Promise<void> {
        if (!await new AcpAgentConsentDialog(consent).open()) {
            return;
        }
        if (!await this.service.grantExternalAgentConsent(this.workspacePath, consent.name, consent.fingerprint)) {
            this.messages.warn(nls.localize('qodeassist/config/acpConsentStale',
                'The external agent "{0}" was not allowed: its entry changed since it was shown, or the workspace is not trusted. Review it again.', consent.name));
        }
        await this.refresh();
    }

    protected async testExternalAgent(name: string): Promise<void> {
        this.agentTests = { ...this.agentTests, [name]: 'testing' };
        this.update();
        const result = await this.service.testExternalAgent(this.workspacePath, name).catch((error: Error) => ({ status: 'error' as const, message: error.message }));
        this.agentTests = { ...this.agentTests, [name]: result };
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
            this.messages.info(nls.localize('qodeassist/config/added', 'Added {0}.', displayPath(file, this.roots)));
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
        const focus = this.focusRequest(overview);
        return <div className='qa-config-root' role='region' aria-label={nls.localize('qodeassist/config/title', ConfigurationWidget.LABEL)}>
            <div className='qa-config-toolbar'>
                <button type='button' className='theia-button secondary' data-action='refresh' title={nls.localize('qodeassist/config/refreshHint', 'Read everything again (skills and MCP states are not watched here)')}
                    onClick={() => void this.refresh()}><i className={codicon('refresh')} aria-hidden='true' /> {nls.localize('qodeassist/config/refresh', 'Refresh')}</button>
            </div>
            <ProjectTrustNotice state={overview.projectTrust} trust={() => void this.projectTrust.requestTrust()} />
            <ProblemsSection issues={overview.issues} roots={this.roots} focus={focus} openFile={(file, line) => this.openFile(file, line)} />
            <ProvidersSection overview={overview} tests={this.tests} form={this.form} roots={this.roots} focus={focus}
                setForm={form => { this.form = form; this.update(); }} test={provider => void this.test(provider)} setKey={(ref, variable) => void this.setKey(ref, variable)}
                clearKey={ref => void this.run(() => this.service.clearKey(ref))} addProvider={() => void this.addProvider()} openFile={file => this.openFile(file)} />
            {this.renderAgents(overview, focus)}
            <ExternalAgentsSection agents={overview.externalAgents ?? []} tests={this.agentTests} roots={this.roots}
                test={name => void this.testExternalAgent(name)} openFile={file => this.openFile(file)} consent={consent => void this.consentToExternalAgent(consent)}
                registry={{
                    load: refresh => this.service.registryAgents(this.workspacePath, this.preferences['qodeassist.acp.registryUrl'], refresh),
                    add: id => this.service.addRegistryAgent(this.workspacePath, this.preferences['qodeassist.acp.registryUrl'], id)
                }} />
            {this.renderRosters(overview)}
            {this.renderRoles(overview)}
            {this.renderTools(overview)}
            <SkillsSection overview={overview} roots={this.roots} openFile={file => this.openFile(file)} />
            {this.renderInstructions()}
            {this.renderMcp()}
        </div>;
    }

    protected renderAgents(overview: ConfigOverview, focus: FocusRequest | undefined): React.ReactNode {
        return <section className='qa-config-section' data-section='agents' aria-labelledby='qa-config-agents'>
            <h2 id='qa-config-agents' tabIndex={-1} ref={focusRef(focus, { section: 'agents' })}>{nls.localize('qodeassist/config/agents', 'Agents')}</h2>
            <table className='qa-config-table qa-config-agents'>
                <colgroup><col className='qa-col-name' /><col className='qa-col-provider' /><col className='qa-col-model' /><col className='qa-col-rosters' /><col className='qa-col-agent-actions' /></colgroup>
                <thead><tr><th>Name</th><th>Provider</th><th>Model</th><th>Rosters</th><th><span className='qa-visually-hidden'>Actions</span></th></tr></thead>
                <tbody>{overview.agents.map(agent => <React.Fragment key={agent.name}><tr data-agent={agent.name} title={agent.description}>
                    <td className='qa-config-cell'>{agent.name}</td><td className='qa-config-cell'>{agent.provider}</td>
                    <td><input className='theia-input qa-config-model' data-field='model' aria-label={nls.localize('qodeassist/config/modelOf', 'Model of {0}', agent.name)} title={nls.localize('qodeassist/config/modelHint', 'The model this agent uses; a change is kept in ~/.qodeassist/agent_models.json (empty: back to the profile\'s)')}
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
                    <td className='qa-config-cell'>{agent.rosters.join(', ')}</td>
                    <td className='qa-config-actions'>
                        <button type='button' className='theia-button secondary' data-action='profile' aria-label={nls.localize('qodeassist/config/profileOf', 'Profile of {0}', agent.name)}
                            aria-expanded={this.preview?.agent === agent.name && this.preview.kind === 'profile'}
                            title={nls.localize('qodeassist/config/profileHint', 'Show the profile after extends, each field with the file it comes from')}
                            onClick={() => this.togglePreview(agent.name, 'profile')}>{nls.localize('qodeassist/config/profile', 'Profile')}</button>
                        <button type='button' className='theia-button secondary' data-action='preview' aria-label={nls.localize('qodeassist/config/bodyOf', 'Request body of {0}', agent.name)}
                            aria-expanded={this.preview?.agent === agent.name && this.preview.kind === 'body'}
                            title={nls.localize('qodeassist/config/bodyHint', 'Show the request body this agent sends, for a sample conversation')}
                            onClick={() => this.togglePreview(agent.name, 'body')}>{nls.localize('qodeassist/config/body', 'Request body')}</button>
                        <button type='button' className='qa-icon-button' data-action='open-agent-file' aria-label={nls.localize('qodeassist/config/openFileOf', 'Open the file of {0}', agent.name)}
                            title={displayPath(agent.file, this.roots)} onClick={() => this.openFile(agent.file)}><i className={codicon('go-to-file')} aria-hidden='true' /></button>
                    </td>
                </tr>
                {this.preview?.agent === agent.name && <tr className='qa-config-preview-row'><td colSpan={5}>
                    <pre className='qa-config-preview' tabIndex={0} data-agent={this.preview.agent} data-kind={this.preview.kind}>{this.preview.text}</pre>
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
                        <button type='button' className='qa-icon-button' data-action='up' aria-label={nls.localize('qodeassist/config/earlierOf', 'Move {0} earlier', agent)}
                            title={nls.localize('qodeassist/config/earlier', 'Earlier')} disabled={index === 0} onClick={() => this.move(pipeline, index, -1)}><i className={codicon('arrow-up')} aria-hidden='true' /></button>
                        <button type='button' className='qa-icon-button' data-action='down' aria-label={nls.localize('qodeassist/config/laterOf', 'Move {0} later', agent)}
                            title={nls.localize('qodeassist/config/later', 'Later')} disabled={index === list.length - 1} onClick={() => this.move(pipeline, index, 1)}><i className={codicon('arrow-down')} aria-hidden='true' /></button>
                    </li>)}</ol>
                    {changed && <button type='button' className='theia-button' data-action='save-roster' title={nls.localize('qodeassist/config/saveRosterHint', 'Write this order to the workspace\'s rosters.toml')} onClick={() => void this.saveRoster(pipeline)}>{nls.localize('qodeassist/config/saveRoster', 'Save order')}</button>}
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
                <span className='qa-config-name'>{role.name}</span> <span className='qa-config-scope' title={role.file}>{role.bundled ? 'bundled' : displayPath(role.file, this.roots)}</span>
                <span className='qa-config-body'>{role.description || role.systemPrompt}</span>
                {role.bundled
                    ? <button type='button' className='theia-button secondary' data-action='copy-role' aria-label={nls.localize('qodeassist/config/copyRoleOf', 'Copy to project: {0}', role.name)}
                        title={nls.localize('qodeassist/config/copyRoleHint', 'Copy this role into the workspace\'s .qodeassist/roles to change it')} onClick={() => void this.newRole(role)}>{nls.localize('qodeassist/config/copyRole', 'Copy to project')}</button>
                    : <>
                        <button type='button' className='qa-icon-button' data-action='edit' aria-label={nls.localize('qodeassist/config/editOf', 'Edit {0}', role.name)}
                            title={nls.localize('qodeassist/config/editHint', 'Edit (opens its file)')} onClick={() => this.openFile(role.file)}><i className={codicon('edit')} aria-hidden='true' /></button>
                        <button type='button' className='qa-icon-button' data-action='delete' aria-label={nls.localize('qodeassist/config/deleteOf', 'Delete {0}', role.name)}
                            title={nls.localize('qodeassist/config/delete', 'Delete')} onClick={() => void this.run(() => this.service.deleteRole(this.workspacePath, role.id))}><i className={codicon('trash')} aria-hidden='true' /></button>
                    </>}
            </li>)}</ul>
            <button type='button' className='theia-button secondary' data-action='new-role' title={nls.localize('qodeassist/config/newRoleHint', 'Write a new role into the workspace\'s .qodeassist/roles')} onClick={() => void this.newRole()}>{nls.localize('qodeassist/config/newRole', 'New role…')}</button>
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
            <table className='qa-config-table qa-config-tools'>
                <colgroup><col className='qa-col-toggle' /><col className='qa-col-tool' /><col className='qa-col-permission' /><col className='qa-col-source' /><col /></colgroup>
                <thead><tr><th>On</th><th>Tool</th><th>Permission</th><th>From</th><th>What it does</th></tr></thead>
                <tbody>{overview.tools.map(tool => <tr key={tool.name} data-tool={tool.name}>
                    <td><input type='checkbox' data-action='toggle-tool' aria-label={nls.localize('qodeassist/config/toolOn', 'Offer {0}', tool.name)}
                        title={nls.localize('qodeassist/config/toolOnHint', 'Offer {0} to the chat and refactor in this workspace', tool.name)} checked={enabled(tool.name)} onChange={event => void this.setToolEnabled(tool.name, event.target.checked)} /></td>
                    <td className='qa-config-name'>{tool.name}</td>
                    <td className='qa-config-nowrap' title={tool.permission === 'read' ? 'runs without asking' : 'asks before it runs'}>{tool.permission}</td>
                    <td className='qa-config-nowrap'>{tool.source}</td>
                    <td className='qa-config-body' title={tool.description}>{tool.description}</td>
                </tr>)}</tbody>
            </table>
            {overview.sandbox && <div className='qa-config-scope' data-sandbox={overview.sandbox.sandboxed ? 'bubblewrap' : 'none'}>
                {overview.sandbox.sandboxed
                    ? nls.localize('qodeassist/config/sandboxed', 'Commands run in a sandbox: {0}.', overview.sandbox.label)
                    : nls.localize('qodeassist/config/notSandboxed', 'Commands are not sandboxed on this machine. {0}', overview.sandbox.howToEnable ?? '')}
            </div>}
        </section>;
    }

    protected renderInstructions(): React.ReactNode {
        return <section className='qa-config-section' data-section='instructions'>
            <h2>{nls.localize('qodeassist/config/instructions', 'Refactor instructions')}</h2>
            <ul className='qa-config-list'>{this.instructions.map(instruction => <li key={`${instruction.scope}:${instruction.id}`} data-instruction={instruction.name}>
                <span className='qa-config-name'>{instruction.name}</span> <span className='qa-config-scope'>{instruction.scope}</span>
                <span className='qa-config-body'>{instruction.body}</span>
                <button type='button' className='qa-icon-button' data-action='edit' aria-label={nls.localize('qodeassist/config/editOf', 'Edit {0}', instruction.name)}
                    title={nls.localize('qodeassist/config/editHint', 'Edit (opens its file)')} onClick={() => this.openFile(instruction.file)}><i className={codicon('edit')} aria-hidden='true' /></button>
                <button type='button' className='qa-icon-button' data-action='duplicate' aria-label={nls.localize('qodeassist/config/duplicateOf', 'Duplicate {0}', instruction.name)}
                    title={nls.localize('qodeassist/config/duplicate', 'Duplicate')} onClick={() => void this.run(() => this.refactor.duplicateInstruction(this.workspacePath, instruction.id, instruction.scope))}><i className={codicon('copy')} aria-hidden='true' /></button>
                <button type='button' className='qa-icon-button' data-action='delete' aria-label={nls.localize('qodeassist/config/deleteOf', 'Delete {0}', instruction.name)}
                    title={nls.localize('qodeassist/config/delete', 'Delete')} onClick={() => void this.run(() => this.refactor.deleteInstruction(this.workspacePath, instruction.id, instruction.scope))}><i className={codicon('trash')} aria-hidden='true' /></button>
            </li>)}</ul>
            <button type='button' className='theia-button secondary' data-action='new-instruction' title={nls.localize('qodeassist/config/newInstructionHint', 'Save a new refactor instruction in your library')} onClick={() => void this.newInstruction()}>{nls.localize('qodeassist/config/newInstruction', 'New instruction…')}</button>
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
                <button type='button' className='theia-button secondary' data-action='mcp-connect' title={nls.localize('qodeassist/config/mcpConnectHint', 'Show how to connect MCP clients to QodeAssist\'s server')}
                    onClick={() => void this.commands.executeCommand('qodeassist.mcp.connectClients')}>{nls.localize('qodeassist/config/mcpConnect', 'Connect clients…')}</button>
            </div>
            <McpServersList servers={this.mcpServers} reconnect={name => void this.run(() => this.mcp.reconnect(this.workspacePath, name))}
                signIn={name => void this.commands.executeCommand('qodeassist.mcp.signIn', name)} signOut={name => void this.run(() => this.mcp.signOut(this.workspacePath, name))} />
        </section>;
    }
}
