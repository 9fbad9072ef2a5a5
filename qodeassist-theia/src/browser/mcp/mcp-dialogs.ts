import type { PermissionAnswer } from '@qodeassist/core';
import { nls } from '@theia/core';
import { AbstractDialog, Message } from '@theia/core/lib/browser';
import { McpConsentDetails, McpToolPrompt } from '../../common/mcp-protocol';
import type { ConsentDetails } from '../../common/config-protocol';

/*
 * The MCP prompts are built from text nodes only (textContent, never innerHTML, Markdown or
 * command links): what an outside client or a repository wrote is shown, never interpreted.
 */

const MAX_ARGUMENTS = 4_000;

function field(label: string, value: string, className = ''): HTMLElement {
    const row = document.createElement('div');
    row.className = `qa-mcp-field ${className}`.trim();
    row.style.marginTop = '6px';
    const name = document.createElement('div');
    name.className = 'qa-mcp-field-label';
    name.style.fontWeight = '600';
    name.textContent = label;
    const multiline = value.includes('\n');
    const text = document.createElement(multiline ? 'pre' : 'div');
    text.className = 'qa-mcp-field-value';
    text.textContent = value;
    // Inline until the stylesheet has rules for these: long diffs scroll instead of growing the dialog.
    Object.assign(text.style, multiline
        ? { background: 'var(--theia-textCodeBlock-background)', padding: '6px', margin: '4px 0', maxHeight: '320px', overflow: 'auto', whiteSpace: 'pre-wrap', userSelect: 'text' }
        : { whiteSpace: 'pre-wrap', wordBreak: 'break-all', userSelect: 'text' });
    row.append(name, text);
    return row;
}

/** A dialog answered only by clicking: Enter does nothing, so a keystroke meant for the editor never answers it. */
abstract class ClickOnlyDialog<T> extends AbstractDialog<T> {
    protected focusTarget: HTMLButtonElement | undefined;

    protected override handleEnter(): boolean {
        return false;
    }

    protected override onActivateRequest(msg: Message): void {
        super.onActivateRequest(msg);
        this.focusTarget?.focus();
    }

    protected answerButton(text: string, primary: boolean, onClick: () => void): HTMLButtonElement {
        const button = this.appendButton(text, primary);
        button.addEventListener('click', () => {
            onClick();
            void this.accept();
        });
        return button;
    }
}

/** The modal prompt for an outside MCP client's write or execute tool: Deny is the default and the focus. */
export class McpToolPermissionDialog extends ClickOnlyDialog<PermissionAnswer> {
    protected answer: PermissionAnswer = 'deny';

    constructor(readonly prompt: McpToolPrompt) {
        super({
            title: prompt.permission === 'execute'
                ? nls.localize('qodeassist/mcp/permissionRunTitle', 'An MCP client wants to run {0}', prompt.tool)
                : nls.localize('qodeassist/mcp/permissionWriteTitle', 'An MCP client wants to change a file ({0})', prompt.tool),
            maxWidth: 900,
            wordWrap: 'break-word'
        });
        this.node.classList.add('qa-mcp-permission');
        this.node.dataset.tool = prompt.tool;
        this.contentNode.append(...this.fields());
        this.focusTarget = this.answerButton(nls.localize('qodeassist/mcp/deny', 'Deny'), false, () => { this.answer = 'deny'; });
        this.focusTarget.dataset.answer = 'deny';
        this.answerButton(nls.localize('qodeassist/mcp/allowClient', 'Allow for this client'), false, () => { this.answer = 'allow-chat'; }).dataset.answer = 'allow-chat';
        this.answerButton(nls.localize('qodeassist/mcp/allowOnce', 'Allow once'), true, () => { this.answer = 'allow-once'; }).dataset.answer = 'allow-once';
    }

    get value(): PermissionAnswer {
        return this.answer;
    }

    protected fields(): HTMLElement[] {
        const prompt = this.prompt;
        const rows: HTMLElement[] = [];
        if (prompt.path !== undefined) {
            rows.push(field(nls.localize('qodeassist/mcp/fieldPath', 'Path'), prompt.path, 'qa-mcp-path'));
            if (prompt.pathProblem) {
                rows.push(field(nls.localize('qodeassist/mcp/fieldPathProblem', 'The tool will refuse this path'), prompt.pathProblem));
            }
        }
        rows.push(
            field(nls.localize('qodeassist/mcp/fieldClient', 'Client (the name it claims, not verified)'),
                prompt.claimedVersion ? `${prompt.claimedClient} ${prompt.claimedVersion}` : prompt.claimedClient, 'qa-mcp-client'),
            field(nls.localize('qodeassist/mcp/fieldWorkspace', 'Workspace'), prompt.workspace, 'qa-mcp-workspace'),
            field(nls.localize('qodeassist/mcp/fieldTool', 'Tool'), `${prompt.tool} (${prompt.permission})`)
        );
        if (prompt.diff !== undefined) {
            rows.push(field(nls.localize('qodeassist/mcp/fieldDiff', 'Change'), prompt.diff.endsWith('\n') ? prompt.diff : `${prompt.diff}\n`, 'qa-mcp-diff'));
        } else if (prompt.diffProblem) {
            rows.push(field(nls.localize('qodeassist/mcp/fieldDiffProblem', 'Change'), prompt.diffProblem));
        }
        const args = JSON.stringify(prompt.arguments, undefined, 2);
        rows.push(field(nls.localize('qodeassist/mcp/fieldArguments', 'Arguments'), `${args.length > MAX_ARGUMENTS ? `${args.slice(0, MAX_ARGUMENTS)}\n…` : args}\n`, 'qa-mcp-arguments'));
        rows.push(field('', prompt.allowForClient === 'same-arguments'
            ? nls.localize('qodeassist/mcp/scopeArguments', '"Allow for this client" covers this tool with exactly these arguments, until the client disconnects.')
            : nls.localize('qodeassist/mcp/scopeTool', '"Allow for this client" covers this tool, until the client disconnects.')));
        return rows;
    }
}

/**
 * Asks once per entry a project wants to start, before it may: what runs, where, and the names
 * (never the values) of its variables. Deny has the focus; only a click answers.
 */
abstract class ProjectConsentDialog extends ClickOnlyDialog<boolean> {
    protected allowed = false;

    constructor(title: string, intro: string, fields: HTMLElement[], mark: (node: HTMLElement) => void) {
        super({ title, maxWidth: 800, wordWrap: 'break-word' });
        mark(this.node);
        const paragraph = document.createElement('p');
        paragraph.textContent = intro;
        this.contentNode.append(paragraph, ...fields);
        this.focusTarget = this.answerButton(nls.localize('qodeassist/mcp/consentDeny', 'Don\'t allow'), false, () => { this.allowed = false; });
        this.answerButton(nls.localize('qodeassist/mcp/consentAllow', 'Allow'), true, () => { this.allowed = true; });
    }

    get value(): boolean {
        return this.allowed;
    }
}

/** The rows of a program a project wants to start: command, arguments, working folder, variable names; `prefix` names their classes. */
function programFields(prefix: string, program: { command?: string; args?: readonly string[]; envNames?: readonly string[] }, cwd: string, envLabel: string): HTMLElement[] {
    return [
        field(nls.localize('qodeassist/mcp/consentCommand', 'Command'), program.command ?? '', `${prefix}-command`),
        field(nls.localize('qodeassist/mcp/consentArgs', 'Arguments'), (program.args ?? []).length ? `${JSON.stringify(program.args, undefined, 2)}\n` : '(none)', `${prefix}-args`),
        field(nls.localize('qodeassist/mcp/consentCwd', 'Working folder'), cwd, `${prefix}-cwd`),
        field(envLabel, (program.envNames ?? []).join(', ') || '(none)', `${prefix}-env`)
    ];
}

/** Asks once per project server entry before it may start: what runs (or where it connects), and the names of its variables or headers. */
export class McpServerConsentDialog extends ProjectConsentDialog {
    constructor(readonly details: McpConsentDetails) {
        super(nls.localize('qodeassist/mcp/consentTitle', 'Start the project\'s MCP server "{0}"?', details.server),
            nls.localize('qodeassist/mcp/consentIntro',
                'This workspace\'s .qodeassist/mcp.json wants to start a program (or connect to a server) with your rights. Allow it only if you know what it is. An edited entry asks again.'),
            [field(nls.localize('qodeassist/mcp/consentSource', 'From'), details.source), ...details.transport === 'stdio'
                ? programFields('qa-mcp', details, details.cwd ?? nls.localize('qodeassist/mcp/consentCwdDefault', '(not set: the IDE backend\'s folder)'),
                    nls.localize('qodeassist/mcp/consentEnv', 'Environment variables set (names only)'))
                : [
                    field(nls.localize('qodeassist/mcp/consentUrl', 'URL ({0})', details.transport), details.url ?? '', 'qa-mcp-url'),
                    field(nls.localize('qodeassist/mcp/consentHeaders', 'Headers sent (names only)'), (details.headerNames ?? []).join(', ') || '(none)', 'qa-mcp-headers')
                ]],
            node => {
                node.classList.add('qa-mcp-consent');
                node.dataset.server = details.server;
            });
    }
}

/**
 * Asks once per project external agent entry (`.qodeassist/acp/*.toml`) before it may start:
 * the program, its arguments, the folder it runs in and the names of the variables it would
 * receive from the IDE backend's environment (their values, perhaps keys, are never shown).
 */
export class AcpAgentConsentDialog extends ProjectConsentDialog {
    constructor(readonly details: ConsentDetails) {
        super(nls.localize('qodeassist/acp/consentTitle', 'Allow the project\'s external agent "{0}" to start?', details.name),
            nls.localize('qodeassist/acp/consentIntro',
                'This workspace\'s .qodeassist/acp wants to start a program with your rights, and to pass it the variables named below. Allow it only if you know what it is. An edited entry asks again.'),
            [field(nls.localize('qodeassist/mcp/consentSource', 'From'), details.source),
                ...programFields('qa-acp', details, details.cwd ?? '', nls.localize('qodeassist/acp/consentEnv', 'Variables it receives (names only)'))],
            node => {
                node.classList.add('qa-acp-consent');
                node.dataset.agent = details.name;
            });
    }
}
