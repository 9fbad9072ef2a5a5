import { runBench } from './bench-cli';

/** The process side of the CLI: real streams, environment and Ctrl+C. */
export async function main(): Promise<void> {
    // `qodeassist-bench agents | head` closes the pipe early; that is not an error.
    process.stdout.on('error', error => {
        if ((error as NodeJS.ErrnoException).code === 'EPIPE') {
            process.exit(0);
        }
        throw error;
    });
    const code = await runBench(process.argv.slice(2), {
        out: line => process.stdout.write(`${line}\n`),
        err: line => process.stderr.write(`${line}\n`),
        env: process.env,
        cwd: process.cwd(),
        onInterrupt: handler => {
            process.on('SIGINT', handler);
            return () => process.off('SIGINT', handler);
        }
    });
    process.exitCode = code;
}
