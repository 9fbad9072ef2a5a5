import { randomUUID } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { bubblewrapArgs, existingHiddenPaths, existingProtectedPaths, homesOf, secretPathCandidates } from './bubblewrap-args';
import { withGitSafety } from './child-environment';
import { ContainedProcess, startContained } from './contained-process';
import { PROCESS_TREE_TAG } from './process-tree-scan';
import { SandboxSettings, sandboxFor, sandboxLabel } from './sandbox';

export interface CommandStartOptions {
    cwd: string;
    /** The child's environment, already scrubbed. */
    env: Record<string, string>;
    /** The folders the command may write: the workspace roots. */
    writableRoots: readonly string[];
    /** The environment the places holding keys are read from (HOME, the state dir, `*_KEY_FILE`): the backend's own, before scrubbing. */
    sourceEnv: Readonly<Record<string, string | undefined>>;
    sandbox?: SandboxSettings;
    timeoutMs?: number;
    signal?: AbortSignal;
    stderr?: boolean;
    platform?: NodeJS.Platform;
}

export interface SandboxedProcess extends ContainedProcess {
    /** The sandbox it runs in, for the tool result header: `bubblewrap (…)` or `none — …`. */
    sandbox: string;
}

/**
 * Starts a command a tool or an agent asked for (`program` absolute, found outside the workspace):
 * in bubblewrap where it starts, otherwise contained by process group and /proc scan. Either way
 * its environment carries the git settings that keep a repository's configuration from running code.
 */
export async function startCommand(program: string, args: readonly string[], options: CommandStartOptions): Promise<SandboxedProcess> {
    const platform = options.platform ?? process.platform;
    const availability = platform === 'linux' || options.sandbox?.mode === 'off' ? await sandboxFor(options.sandbox) : { kind: 'none' as const, reason: `no sandbox is available on ${platform}` };
    const sandbox = sandboxLabel(availability, options.sandbox, platform);
    const env = withGitSafety(options.env);
    const common = { env, timeoutMs: options.timeoutMs, signal: options.signal, stderr: options.stderr, platform };
    if (availability.kind === 'bubblewrap') {
        const real = (path: string) => realpath(path).catch(() => path);
        const writable = [...new Set(await Promise.all(options.writableRoots.map(real)))];
        const cwd = await real(options.cwd);
        const hidden = await existingHiddenPaths(secretPathCandidates(options.sourceEnv, homesOf(options.sourceEnv), process.getuid?.()));
        const network = options.sandbox?.network !== false || !availability.canCutNetwork;
        // Inside, /tmp is private and empty: a TMPDIR elsewhere would be read-only or absent.
        const sandboxedEnv = { ...env, TMPDIR: '/tmp' };
        const readOnly = await existingProtectedPaths(writable);
        const started = startContained(availability.program, bubblewrapArgs({ writable, hidden, cwd, network, readOnly }, program, args), { ...common, cwd, env: sandboxedEnv });
        return { ...started, sandbox };
    }
    // No namespace to end the tree with: every descendant carries a tag the kill finds, even one that left the group.
    const treeTag = randomUUID();
    const started = startContained(program, args, { ...common, cwd: options.cwd, env: { ...env, [PROCESS_TREE_TAG]: treeTag }, treeTag });
    return { ...started, sandbox };
}
