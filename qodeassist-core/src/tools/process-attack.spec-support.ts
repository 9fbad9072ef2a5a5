import { readdirSync, readFileSync } from 'node:fs';

/* Shared by the sandbox attack specs (tools' commands, ACP terminals): what they look for, and how. */

/** The key, reversed, and base64 at each of the three alignments it can sit at in an encoded stream. */
export function keyForms(key: string): string[] {
    const base64 = [0, 1, 2].map(shift => Buffer.from('x'.repeat(shift) + key).toString('base64').slice(Math.ceil(shift * 4 / 3) + 1, -4));
    return [key, [...key].reverse().join(''), ...base64];
}

/** Host pids of live processes whose command line holds `token` (a zombie is dead). */
export function pidsWith(token: string): number[] {
    return readdirSync('/proc').filter(name => /^\d+$/.test(name)).map(Number).filter(pid => {
        try {
            const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
            return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z' && readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(token);
        } catch {
            return false;
        }
    });
}

/** Probes every 50 ms until `done` holds or `ms` passed; the last value either way. */
export async function until<T>(probe: () => T, done: (value: T) => boolean, ms = 5_000): Promise<T> {
    const end = Date.now() + ms;
    let value = probe();
    while (!done(value) && Date.now() < end) {
        await new Promise(resolveWait => setTimeout(resolveWait, 50));
        value = probe();
    }
    return value;
}
