import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { BUBBLEWRAP_ISOLATION } from './bubblewrap-args';

/**
 * Whether commands the tools start can run in an OS sandbox, found out once per process.
 * On Linux that is bubblewrap: it may be installed and still fail (no unprivileged user
 * namespaces), so it counts only after a probe with the same isolation commands get has run.
 */

/** What the user chose for commands' sandbox (a core option; the IDE's `qodeassist.tools.sandboxNetwork`). */
export interface SandboxSettings {
    /** 'auto' (default): bubblewrap where it starts, the process-tree containment alone elsewhere; 'off': never sandbox. */
    mode?: 'auto' | 'off';
    /** Network inside the sandbox; on by default (package managers, tests against services). */
    network?: boolean;
}

export type SandboxAvailability =
    | { kind: 'bubblewrap'; program: string; canCutNetwork: boolean }
    | { kind: 'none'; reason: string; turnedOff?: boolean };

export const NOT_SANDBOXED = 'commands are not sandboxed on this machine';

/** Absolute system places only: a `bwrap` on PATH could be the workspace's own. */
const BWRAP_CANDIDATES = ['/usr/bin/bwrap', '/bin/bwrap', '/usr/local/bin/bwrap'];
const TRUE_CANDIDATES = ['/usr/bin/true', '/bin/true'];
const PROBE_TIMEOUT_MS = 5_000;

/** What the user can do to get the sandbox, for the chat and the configuration view. */
export function howToEnableSandbox(platform: NodeJS.Platform = process.platform): string {
    return platform === 'linux'
        ? 'Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) and allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ also kernel.apparmor_restrict_unprivileged_userns=0), then restart the IDE.'
        : 'QodeAssist sandboxes commands only on Linux (bubblewrap); here commands run with a scrubbed environment, a program found outside the workspace and the whole process tree ended, but they can read and write what your user can.';
}

function firstExecutable(candidates: readonly string[]): string | undefined {
    return candidates.find(path => {
        try {
            accessSync(path, constants.X_OK);
            return true;
        } catch {
            return false;
        }
    });
}

function probe(bwrap: string, truePath: string, extra: readonly string[]): Promise<string | undefined> {
    return new Promise(resolve => {
        const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', ...BUBBLEWRAP_ISOLATION, ...extra, '--', truePath];
        const child = spawn(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: '/usr/bin:/bin' } });
        let stderr = '';
        const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
        child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
        child.on('error', error => { clearTimeout(timer); resolve(error.message); });
        child.on('close', code => {
            clearTimeout(timer);
            resolve(code === 0 ? undefined : stderr.trim().split('\n')[0] || `exit code ${code}`);
        });
    });
}

/** Uncached: finds bwrap among `candidates` and probes it. */
export async function probeSandbox(platform: NodeJS.Platform = process.platform, candidates: readonly string[] = BWRAP_CANDIDATES): Promise<SandboxAvailability> {
    if (platform !== 'linux') {
        return { kind: 'none', reason: `no sandbox is available on ${platform}` };
    }
    const bwrap = firstExecutable(candidates);
    if (!bwrap) {
        return { kind: 'none', reason: 'bubblewrap (bwrap) is not installed' };
    }
    const truePath = firstExecutable(TRUE_CANDIDATES);
    if (!truePath) {
        return { kind: 'none', reason: 'no /usr/bin/true to probe bubblewrap with' };
    }
    const [failure, netFailure] = await Promise.all([probe(bwrap, truePath, []), probe(bwrap, truePath, ['--unshare-net'])]);
    return failure
        ? { kind: 'none', reason: `bubblewrap cannot start here (${failure}); unprivileged user namespaces are probably turned off` }
        : { kind: 'bubblewrap', program: bwrap, canCutNetwork: netFailure === undefined };
}

let cached: Promise<SandboxAvailability> | undefined;

/** Whether commands can be sandboxed here, probed once per process. */
export function detectSandbox(): Promise<SandboxAvailability> {
    cached ??= probeSandbox();
    return cached;
}

/** The sandbox a command runs in, as its tool result header names it. */
export function sandboxLabel(availability: SandboxAvailability, settings: SandboxSettings = {}, platform: NodeJS.Platform = process.platform): string {
    if (availability.kind === 'none' && availability.turnedOff) {
        return `none — ${availability.reason}`;
    }
    if (availability.kind === 'none') {
        return `none — ${NOT_SANDBOXED} (${availability.reason}). ${howToEnableSandbox(platform)}`;
    }
    const network = settings.network === false ? (availability.canCutNetwork ? 'network off' : 'network on: it could not be cut here') : 'network on';
    return `bubblewrap (pid namespace, read-only system, workspace writable, secrets hidden, ${network})`;
}

/** The sandbox a command will get under these settings: 'off' is no sandbox, whatever the machine offers. */
export async function sandboxFor(settings: SandboxSettings = {}): Promise<SandboxAvailability> {
    return settings.mode === 'off' ? { kind: 'none', reason: 'the sandbox is turned off for these commands', turnedOff: true } : detectSandbox();
}
