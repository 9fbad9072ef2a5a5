import { Page } from 'playwright-core';

/** The workspace's own QodeAssist configuration: a provider on the fake server, an agent on it, and the chat and compression rosters. */
export function workspaceConfiguration(serverUrl: string): Record<string, string> {
    return {
        '.qodeassist/providers/fake.toml': `schema_version = 1\nname = "fake"\nclient_api = "openai_compatible"\nurl = "${serverUrl}/v1"\napi_key_ref = "e2e"\n`,
        '.qodeassist/agents/fake-chat.toml': 'schema_version = 1\nname = "fake-chat"\nextends = "openai-base"\nprovider_instance = "fake"\nmodel = "fake-model"\n',
        '.qodeassist/agents/rosters.toml': 'schema_version = 1\n\n[chat]\nagents = ["fake-chat"]\n\n[compression]\nagents = ["fake-chat"]\n'
    };
}

/** The chat view of a page, driven as a user would. */
export class ChatPage {
    constructor(readonly page: Page, readonly scope = '.qa-chat') { }

    get input() {
        return this.page.locator(`${this.scope} .qa-input`);
    }

    lastAnswer() {
        return this.page.locator(`${this.scope} .qa-message[data-role=assistant]`).last();
    }

    /** How many answers the view should show once the last send was taken. */
    private expectedAnswers = 0;

    async send(text: string): Promise<void> {
        await this.input.fill(text);
        await this.submit();
    }

    /** Presses Enter in the input to send what it holds. */
    async submit(): Promise<void> {
        this.expectedAnswers = await this.page.locator(`${this.scope} .qa-message[data-role=assistant]`).count() + 1;
        await this.input.press('Enter');
    }

    /** Waits until the answer to the last send (not an older one) reaches a status. */
    async waitForLastAnswer(status: string, timeout = 20_000): Promise<void> {
        await this.page.waitForFunction(([scope, expected, count]) => {
            const answers = document.querySelectorAll(`${scope} .qa-message[data-role=assistant]`);
            return answers.length >= count && answers[answers.length - 1]?.getAttribute('data-status') === expected;
        }, [this.scope, status, this.expectedAnswers] as const, { timeout });
    }
}
