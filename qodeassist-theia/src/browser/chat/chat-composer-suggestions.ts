import { nls, QuickInputService } from '@theia/core';
import { EditorManager } from '@theia/editor/lib/browser/editor-manager';
import type { AgentSessionState, QodeAssistChatService, SkillChoice } from '../../common/chat-protocol';
import type { McpContentPart, QodeAssistMcpFeaturesService } from '../../common/mcp-features-protocol';
import type { QodeAssistPreferences } from '../qodeassist-preferences';
import { commandSuggestions } from './agent-session-state';
import { ChatMcpOffers, chooseMcpOffer, McpOffer } from './chat-mcp-offers';
import {
    draftAfterPrompt, knownValues, missingArgument, moveField, openForm, PromptCommandError, PromptForm, PromptOffer, sentValues, typedPrompt, valueOf, withValue
} from './chat-prompt-arguments';
import { applySuggestion, rankMentions, SuggestionTrigger, triggerAt } from './chat-suggestions';

export interface Suggestions {
    trigger: SuggestionTrigger;
    items: Array<{ value: string; detail?: string }>;
    index: number;
}

/** What the suggestions need of their composer and the frontend. */
export interface ComposerSuggestionsHost {
    readonly composer: {
        readonly inputElement: HTMLTextAreaElement | null;
        readonly workspacePath: string | undefined;
        readonly agentSession: AgentSessionState | undefined;
        externalAgent(): boolean;
        relativePath(path: string): string;
        setDraft(text: string): void;
        scheduleEstimate(): void;
        showProblem(reason: string | undefined): void;
    };
    skills(): readonly SkillChoice[];
    /** Attaches what an MCP resource or prompt returned, as a file or image would be. */
    attach(part: McpContentPart): Promise<void>;
    update(): void;
    chatService: QodeAssistChatService;
    mcpFeatures: QodeAssistMcpFeaturesService;
    editors: EditorManager;
    preferences: QodeAssistPreferences;
    quickInput: QuickInputService;
}

function message(error: unknown): string {
    return error instanceof Error ? error.message.replace(/^Request failed: /, '') : String(error);
}

/**
 * The composer's `@` and `/`: the suggestion list (files, skills, an external agent's commands, MCP
 * resources and prompts), choosing one, and an MCP prompt's argument form in the composer, which
 * also takes the arguments typed after the command (`/mcp.srv.review ref=HEAD "focus=the tests"`).
 */
export class ComposerSuggestions {
    suggestions: Suggestions | undefined;
    /** The argument form of the MCP prompt being filled in, shown above the text area. */
    promptForm: PromptForm | undefined;
    /** The workspace's MCP resources (on `@`) and prompts (on `/`), refreshed when a server's lists change. */
    readonly mcpOffers = new ChatMcpOffers();
    private completionGeneration = 0;

    constructor(private readonly host: ComposerSuggestionsHost) { }

    async loadMcpOffers(): Promise<void> {
        try {
            this.mcpOffers.set(await this.host.mcpFeatures.catalog(this.host.composer.workspacePath));
        } catch {
            // No hub answer: nothing of MCP is offered until the servers change again.
        }
    }

    async update(): Promise<void> {
        const { composer } = this.host;
        const input = composer.inputElement;
        const trigger = input ? triggerAt(input.value, input.selectionStart ?? input.value.length) : undefined;
        if (!trigger) {
            if (this.suggestions) {
                this.suggestions = undefined;
                this.host.update();
            }
            return;
        }
        let items: Suggestions['items'];
        if (trigger.kind === 'skill' && composer.externalAgent()) {
            items = commandSuggestions(composer.agentSession, trigger.query);
        } else if (trigger.kind === 'skill') {
            items = [...this.host.skills().filter(skill => skill.name.startsWith(trigger.query)).map(skill => ({ value: skill.name, detail: skill.description })), ...this.mcpOffers.commands(trigger.query)];
        } else {
            const open = this.host.editors.all.filter(widget => widget.editor.uri.scheme === 'file').map(widget => composer.relativePath(widget.editor.uri.path.fsPath()));
            const workspace = composer.workspacePath;
            const found = workspace ? await this.host.chatService.findFiles(workspace, trigger.query, { useGitignore: this.host.preferences['qodeassist.tools.useGitignore'] }) : [];
            const current = composer.inputElement ? triggerAt(composer.inputElement.value, composer.inputElement.selectionStart ?? 0) : undefined;
            if (current?.query !== trigger.query || current.kind !== trigger.kind) {
                return;
            }
            items = [
                ...rankMentions(trigger.query, open, found).map(path => ({ value: path, detail: open.includes(path) ? nls.localize('qodeassist/chat/openEditor', 'open editor') : undefined })),
                ...this.mcpOffers.mentions(trigger.query).slice(0, 12)
            ];
        }
        this.suggestions = items.length > 0 ? { trigger, items, index: 0 } : undefined;
        this.host.update();
    }

    /** Moves the highlighted suggestion down (1) or up (-1), around the ends. */
    move(step: 1 | -1): void {
        const suggestions = this.suggestions;
        if (suggestions) {
            suggestions.index = (suggestions.index + step + suggestions.items.length) % suggestions.items.length;
            this.host.update();
        }
    }

    close(): void {
        if (this.suggestions) {
            this.suggestions = undefined;
            this.host.update();
        }
    }

    choose(value: string): void {
        const input = this.host.composer.inputElement;
        if (!input || !this.suggestions) {
            return;
        }
        const offer = this.mcpOffers.offerFor(value);
        if (offer && (this.suggestions.trigger.kind === 'skill') === (offer.kind === 'prompt')) {
            void this.chooseMcp(offer, value, input);
            return;
        }
        this.insertChoice(input, value);
        input.focus();
        this.host.composer.scheduleEstimate();
        this.host.update();
    }

    private insertChoice(input: HTMLTextAreaElement, value: string): void {
        const next = applySuggestion(input.value, input.selectionStart ?? input.value.length, this.suggestions!.trigger, value);
        this.host.composer.setDraft(next.text);
        input.setSelectionRange(next.caret, next.caret);
        this.suggestions = undefined;
    }

    /** A prompt's command goes in the draft and its argument form opens (it runs at once without arguments); a resource is read and attached now. */
    private async chooseMcp(offer: McpOffer, value: string, input: HTMLTextAreaElement): Promise<void> {
        if (offer.kind === 'prompt') {
            this.insertChoice(input, value);
            this.promptForm = openForm(offer, value);
            await (offer.arguments.length === 0 ? this.runPrompt() : this.host.update());
            return;
        }
        const { composer } = this.host;
        const trigger = this.suggestions!.trigger;
        const caret = input.selectionStart ?? input.value.length;
        this.suggestions = undefined;
        // The `@query` typed goes.
        composer.setDraft(input.value.slice(0, trigger.start) + input.value.slice(caret).replace(/^\S*\s?/, ''));
        composer.showProblem(undefined);
        this.host.update();
        const workspace = composer.workspacePath;
        try {
            await chooseMcpOffer(offer, {
                read: resource => this.host.mcpFeatures.readResource(workspace, resource.server, resource.uri),
                readTemplate: (template, values) => this.host.mcpFeatures.readTemplate(workspace, template.server, template.name, values),
                getPrompt: (prompt, values) => this.host.mcpFeatures.getPrompt(workspace, prompt.server, prompt.name, values),
                ask: (chosen, argument) => this.host.quickInput.input({
                    title: `${chosen.server}: ${chosen.label}`,
                    prompt: `${argument.name}${argument.required ? '' : ` (${nls.localize('qodeassist/mcp/optional', 'optional')})`}${argument.description ? ` — ${argument.description}` : ''}`,
                    placeHolder: argument.name, ignoreFocusLost: true
                }),
                attach: part => this.host.attach(part),
                insert: () => undefined
            });
        } catch (error) {
            composer.showProblem(message(error));
        }
        composer.scheduleEstimate();
        this.host.update();
        composer.inputElement?.focus();
    }

    /**
     * Send with a draft that starts with `/mcp.<server>.<prompt> name=value…`: the prompt runs with
     * those arguments (a missing required one opens the form with what was typed) instead of the
     * command going to the model. False when the draft is not an MCP prompt command.
     */
    expandTyped(): boolean {
        const { composer } = this.host;
        if (composer.externalAgent()) {
            return false; // An external agent's `/command` is its own, sent as typed.
        }
        let typed;
        try {
            typed = typedPrompt(composer.inputElement?.value ?? '');
        } catch (error) {
            composer.showProblem(message(error));
            this.host.update();
            return true;
        }
        if (!typed) {
            return false;
        }
        const offer = this.mcpOffers.offerFor(typed.command);
        try {
            if (offer?.kind !== 'prompt') {
                throw new PromptCommandError(`No MCP server offers /${typed.command}; type / to see the prompts of the ready servers (Settings → MCP shows why a server is not ready).`);
            }
            // Enter in the text area while the form is open: what the form holds counts, and what was typed after the command too.
            const filled = this.promptForm?.command === typed.command ? sentValues(this.promptForm.values) : {};
            this.promptForm = openForm(offer, typed.command, { ...filled, ...knownValues(offer, typed.command, typed.values) });
        } catch (error) {
            composer.showProblem(message(error));
            this.host.update();
            return true;
        }
        composer.showProblem(undefined);
        this.suggestions = undefined;
        void (this.promptForm.problem ? this.host.update() : this.runPrompt());
        return true;
    }

    setArgument(name: string, value: string): void {
        if (this.promptForm) {
            this.promptForm = withValue(this.promptForm, name, value);
            this.host.update();
            void this.completeArgument(name);
        }
    }

    /** Asks the server what the argument could be, as typed so far; an answer for older text is dropped. */
    async completeArgument(name: string): Promise<void> {
        const form = this.promptForm;
        if (!form) {
            return;
        }
        const generation = ++this.completionGeneration;
        let values: string[];
        try {
            values = await this.host.mcpFeatures.completePromptArgument(this.host.composer.workspacePath, form.offer.server, form.offer.name, name, valueOf(form.values, name), sentValues(form.values));
        } catch {
            return; // Completion only helps: the field works without it.
        }
        if (generation === this.completionGeneration && this.promptForm?.command === form.command) {
            this.promptForm = { ...this.promptForm, completions: { argument: name, values } };
            this.host.update();
        }
    }

    moveArgument(step: 1 | -1): void {
        if (this.promptForm) {
            this.promptForm = moveField(this.promptForm, step);
            this.host.update();
        }
    }

    /** Esc: the form goes and nothing runs; the command stays in the draft, to edit or delete. */
    cancelPrompt(): void {
        this.promptForm = undefined;
        this.host.update();
        this.host.composer.inputElement?.focus();
    }

    /**
     * Enter in the form: with every required argument filled in, the server's prompt replaces the
     * command in the draft (its images and resources attached); otherwise the form names the missing one.
     */
    async runPrompt(): Promise<void> {
        const form = this.promptForm;
        if (!form || form.running) {
            return;
        }
        const problem = missingArgument(form.offer, form.command, form.values);
        if (problem) {
            this.promptForm = { ...form, problem, field: form.offer.arguments.findIndex(argument => argument.required && !valueOf(form.values, argument.name).trim()) };
            this.host.update();
            return;
        }
        this.promptForm = { ...form, running: true, problem: undefined };
        this.host.update();
        const { composer } = this.host;
        try {
            const result = await this.getPrompt(form.offer, form.values);
            this.promptForm = undefined;
            composer.setDraft(draftAfterPrompt(result.text, this.textAfterCommand(form.command)));
            for (const part of result.attachments) {
                await this.host.attach(part);
            }
        } catch (error) {
            this.promptForm = this.promptForm && { ...form, running: false, problem: message(error) };
        }
        composer.scheduleEstimate();
        this.host.update();
        if (!this.promptForm) {
            composer.inputElement?.focus();
        }
    }

    /**
     * The user's own words in the draft as it is now, which follow the prompt's text: what comes
     * after the command and its arguments, or the whole draft if the command was deleted meanwhile.
     */
    private textAfterCommand(command: string): string {
        const draft = this.host.composer.inputElement?.value ?? '';
        try {
            const typed = typedPrompt(draft);
            return typed?.command === command ? typed.rest : draft;
        } catch {
            return draft; // An unclosed quote: nothing of the draft is lost.
        }
    }

    private getPrompt(offer: PromptOffer, values: Record<string, string>) {
        return this.host.mcpFeatures.getPrompt(this.host.composer.workspacePath, offer.server, offer.name, sentValues(values));
    }
}
