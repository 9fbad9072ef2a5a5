/** One open permission prompt: what it asks about, and whether the user allowed it once answered. */
interface OpenPrompt {
    title: string;
    answer: Promise<boolean>;
}

/**
 * Holds an agent's writes and commands while one of its permission prompts is open: nothing is
 * written or run before the user answers. An agent that asks and then writes without waiting is
 * held until the answer, and refused when the user rejected (or the prompt was cancelled).
 */
export class PermissionGate {
    private readonly open = new Set<OpenPrompt>();

    /** Registers a prompt; `answer` settles with whether the user allowed it. */
    opened(title: string, answer: Promise<boolean>): void {
        const prompt = { title, answer: answer.catch(() => false) };
        this.open.add(prompt);
        void prompt.answer.then(() => this.open.delete(prompt));
    }

    /**
     * Resolves once no prompt is open, with the title of one the user rejected meanwhile (the
     * held operation is then refused), or undefined when every prompt it waited for was allowed.
     */
    async cleared(): Promise<string | undefined> {
        let rejected: string | undefined;
        // Each round waits for the prompts open now; a prompt opened meanwhile is waited for in the next.
        while (this.open.size > 0) {
            const prompts = [...this.open];
            const answers = await Promise.all(prompts.map(prompt => prompt.answer));
            prompts.forEach((prompt, index) => {
                this.open.delete(prompt);
                if (!answers[index] && rejected === undefined) {
                    rejected = prompt.title;
                }
            });
        }
        return rejected;
    }
}
