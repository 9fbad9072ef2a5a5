import { spawn } from 'node:child_process';

/** Runs a command with inherited output; resolves to its exit code. */
export function run(command, args, options = {}) {
    return new Promise(resolve => {
        const child = spawn(command, args, { stdio: 'inherit', ...options, env: { ...process.env, ...options.env } });
        child.on('error', error => {
            console.error(`Could not run ${command}: ${error.message}`);
            resolve(127);
        });
        child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    });
}

export function heading(text) {
    console.log(`\n\x1b[1m== ${text}\x1b[0m`);
}
