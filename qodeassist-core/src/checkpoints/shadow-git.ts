import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { programSearchFor, resolveProgram } from '../tools/program-resolver';
import { QodeAssistError } from '../wire/error-info';

/**
 * Git settings of every checkpoint command, at command-line scope (above any file): a workspace
 * is data and may be hostile — its `.git/config` is never read (the git dir is ours), and nothing
 * a repository or the user's global config names (fsmonitor, hooks, filters, ext transport) runs.
 */
export function checkpointGitConfig(hooksDir: string): Array<[string, string]> {
    return [
        ['core.fsmonitor', 'false'],
        ['core.hooksPath', hooksDir],
        ['safe.bareRepository', 'explicit'],
        ['protocol.ext.allow', 'never'],
        ['core.autocrlf', 'false'],
        ['core.safecrlf', 'false'],
        ['core.symlinks', 'true'],
        ['core.filemode', 'true'],
        ['core.bare', 'false'],
        ['core.quotePath', 'false'],
        // Directories whose mtime did not change are not read again: the incremental walk stays cheap.
        ['core.untrackedCache', 'true'],
        ['gc.auto', '0'],
        ['commit.gpgSign', 'false'],
        ['user.name', 'QodeAssist checkpoints'],
        ['user.email', 'checkpoints@qodeassist.invalid']
    ];
}

/** What the environment of a checkpoint git holds: nothing of the parent's but PATH, and the hardening. */
export function checkpointGitEnvironment(hooksDir: string, path: string): Record<string, string> {
    const config = checkpointGitConfig(hooksDir);
    const env: Record<string, string> = {
        PATH: path,
        // No home: no ~/.gitconfig, no credential helpers; the system config is skipped too.
        HOME: hooksDir,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_TERMINAL_PROMPT: '0',
        GIT_LITERAL_PATHSPECS: '1',
        GIT_NO_REPLACE_OBJECTS: '1',
        LC_ALL: 'C',
        GIT_CONFIG_COUNT: String(config.length)
    };
    config.forEach(([key, value], index) => {
        env[`GIT_CONFIG_KEY_${index}`] = key;
        env[`GIT_CONFIG_VALUE_${index}`] = value;
    });
    return env;
}

/** Git failed (or is missing): the checkpoint could not be taken or read; the message says which. */
export class CheckpointGitError extends QodeAssistError {
    constructor(message: string, detail?: string) {
        super({ category: 'Tool', message, ...(detail ? { providerDetail: detail } : {}) });
    }
}

/** Attributes that beat every `.gitattributes` of the workspace: bytes go in and out as they are, no filter, encoding or line-end conversion. */
const NEUTRAL_ATTRIBUTES = '* -text -eol -filter -ident -working-tree-encoding -export-subst\n';

/**
 * A git repository of QodeAssist's own (its `--git-dir` outside the workspace, the workspace
 * its `--work-tree`), run with the hardening above. The user's `.git` is never opened.
 */
export class ShadowGit {
    private git: Promise<string> | undefined;

    constructor(readonly gitDir: string, readonly workTree: string, private readonly env: Readonly<Record<string, string | undefined>> = process.env) {}

    /** An empty folder for `core.hooksPath` (and HOME): no hook can ever be found there. */
    get hooksDir(): string {
        return join(this.gitDir, 'no-hooks');
    }

    /** Creates the repository when missing (no template: no sample hooks), with neutral attributes. */
    async init(): Promise<void> {
        await mkdir(this.hooksDir, { recursive: true });
        await this.run(['init', '-q', '--template=']);
        await mkdir(join(this.gitDir, 'info'), { recursive: true });
        await writeFile(join(this.gitDir, 'info', 'attributes'), NEUTRAL_ATTRIBUTES);
    }

    /** Runs git on the shadow repository; resolves with its stdout, rejects with its stderr. */
    async run(args: readonly string[], options: { input?: string | Buffer; allowExit?: readonly number[] } = {}): Promise<Buffer> {
        const git = await this.program();
        const env = checkpointGitEnvironment(this.hooksDir, this.env.PATH ?? '');
        return new Promise((resolve, reject) => {
            const child = spawn(git, [`--git-dir=${this.gitDir}`, `--work-tree=${this.workTree}`, ...args], {
                cwd: this.gitDir, env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true
            });
            const out: Buffer[] = [];
            const err: Buffer[] = [];
            child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
            child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
            child.on('error', error => reject(new CheckpointGitError(`Git could not be started for a checkpoint: ${error.message}.`)));
            child.on('close', code => {
                if (code === 0 || (code !== null && options.allowExit?.includes(code))) {
                    resolve(Buffer.concat(out));
                } else {
                    const stderr = Buffer.concat(err).toString('utf8').trim();
                    reject(new CheckpointGitError(`Checkpoint git ${args[0]} failed (exit ${code}): ${stderr.slice(0, 500)}`, stderr));
                }
            });
            child.stdin.on('error', () => undefined);
            child.stdin.end(options.input ?? '');
        });
    }

    /** Git as found on PATH outside the workspace: a repository never brings its own `git`. */
    private program(): Promise<string> {
        this.git ??= resolveProgram('git', programSearchFor(Object.fromEntries(Object.entries(this.env).filter((entry): entry is [string, string] => entry[1] !== undefined)), [this.workTree]))
            .then(found => {
                if (!found) {
                    throw new CheckpointGitError('Checkpoints need git, and none was found on PATH outside the workspace. Install git to have QodeAssist keep checkpoints.');
                }
                return found;
            });
        return this.git;
    }
}
