import { spawn } from 'node:child_process';
import { CommandResult, IBuildRunner, ITerminal } from '../ports/process-ports';
import { CancelledError } from '../wire/error-info';

/** Keeps the head and the tail of long output: the command line and the final error both matter. */
export function capOutput(output: string, max: number): { text: string; omitted: number } {
    if (output.length <= max) {
        return { text: output, omitted: 0 };
    }
    const head = Math.floor(max * 0.3);
    const tail = max - head;
    const omitted = output.length - head - tail;
    return { text: `${output.slice(0, head)}\n[… ${omitted} characters omitted …]\n${output.slice(output.length - tail)}`, omitted };
}

/** Node's child_process, never through a shell. */
export class NodeTerminal implements ITerminal {
    run(argv: readonly string[], options: { cwd: string; timeoutMs: number; maxOutputChars: number; signal?: AbortSignal }): Promise<CommandResult> {
        return new Promise((resolve, reject) => {
            const child = spawn(argv[0], argv.slice(1), { cwd: options.cwd, shell: false, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
            let output = '';
            let timedOut = false;
            const append = (chunk: Buffer) => {
                // Bound memory: keep at most a few times the cap while running.
                output += chunk.toString('utf8');
                if (output.length > options.maxOutputChars * 4) {
                    output = capOutput(output, options.maxOutputChars * 2).text;
                }
            };
            child.stdout.on('data', append);
            child.stderr.on('data', append);
            const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, options.timeoutMs);
            const onAbort = () => child.kill('SIGKILL');
            options.signal?.addEventListener('abort', onAbort, { once: true });
            child.on('error', error => {
                clearTimeout(timer);
                options.signal?.removeEventListener('abort', onAbort);
                const code = (error as NodeJS.ErrnoException).code;
                resolve({ exitCode: null, output: code === 'ENOENT' ? `The command "${argv[0]}" was not found.` : error.message, timedOut: false, omitted: 0 });
            });
            child.on('close', exitCode => {
                clearTimeout(timer);
                options.signal?.removeEventListener('abort', onAbort);
                if (options.signal?.aborted) {
                    reject(new CancelledError());
                    return;
                }
                const capped = capOutput(output, options.maxOutputChars);
                resolve({ exitCode, output: capped.text, timedOut, omitted: capped.omitted });
            });
        });
    }
}

/** The bench CLI's build: one configured command line, run in the workspace. */
export class CommandBuildRunner implements IBuildRunner {
    constructor(private readonly argv: readonly string[], private readonly cwd: string, private readonly terminal: ITerminal = new NodeTerminal()) { }

    build(options: { timeoutMs: number; maxOutputChars: number; signal?: AbortSignal }): Promise<CommandResult> {
        return this.terminal.run(this.argv, { cwd: this.cwd, ...options });
    }
}
