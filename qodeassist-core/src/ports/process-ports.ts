/** The result of a command the tools ran. */
export interface CommandResult {
    exitCode: number | null;
    /** stdout and stderr interleaved as they came, capped. */
    output: string;
    timedOut: boolean;
    /** Characters dropped from the middle of long output. */
    omitted: number;
}

/** Runs one command without a shell (no pipes, no expansion): the IDE's terminal service or a Node child process. */
export interface ITerminal {
    run(argv: readonly string[], options: { cwd: string; timeoutMs: number; maxOutputChars: number; signal?: AbortSignal }): Promise<CommandResult>;
}

/** Runs the workspace's build: a configured build task in the IDE, a command in the bench CLI. */
export interface IBuildRunner {
    build(options: { timeoutMs: number; maxOutputChars: number; signal?: AbortSignal }): Promise<CommandResult>;
}
