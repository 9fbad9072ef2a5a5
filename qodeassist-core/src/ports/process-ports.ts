/** The result of a command the tools ran. */
export interface CommandResult {
    exitCode: number | null;
    /** stdout and stderr interleaved as they came, capped. */
    output: string;
    timedOut: boolean;
    /** Characters dropped from the middle of long output. */
    omitted: number;
    /** The sandbox it ran in, as the tool result header names it; absent: the terminal does not say. */
    sandbox?: string;
}

export interface TerminalRunOptions {
    cwd: string;
    timeoutMs: number;
    maxOutputChars: number;
    signal?: AbortSignal;
    /** The workspace the command runs in: a program found inside it is never started. */
    workspaceRoots?: readonly string[];
}

/**
 * Runs one command without a shell (no pipes, no expansion): the IDE's terminal service or a
 * Node child process. Contained: no keys in its environment, the program found outside the
 * workspace, the whole process tree ended on timeout or cancel.
 */
export interface ITerminal {
    run(argv: readonly string[], options: TerminalRunOptions): Promise<CommandResult>;
}

/** Runs the workspace's build: a configured build task in the IDE, a command in the bench CLI. */
export interface IBuildRunner {
    build(options: { timeoutMs: number; maxOutputChars: number; signal?: AbortSignal }): Promise<CommandResult>;
}
