import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { sessionAgentFor } from '../agents/agent-request';
import { managedAgentRefusal } from '../agents/agent-router';
import { Configuration, ResolvedAgent } from '../agents/configuration-loader';
import { ConfigurationService } from '../agents/configuration-service';
import { formatIssue } from '../config/config-issue';
import { defaultConfigRoots, qodeassistHome } from '../config/config-layers';
import { MANAGED_LABEL, originRefusal } from '../config/managed-policy';
import { spendLedgerPath } from '../config/state-dir';
import { projectLayerEntries, untrustedProjectNotice } from '../config/project-trust';
import { PIPELINES } from '../config/schemas';
import { ChainedSecretsStore, DotEnvSecretsStore, EnvironmentSecretsStore, RecordingSecretsStore, SecretsStore } from '../config/secrets-store';
import { PermissionGrant } from '../ports/permission-prompt';
import { QodeAssistRuntime } from '../runtime/qodeassist-runtime';
import { ToolSettings } from '../runtime/request-tools';
import { endpointUrl } from '../wire/client-apis';
import { QodeAssistError, toErrorInfo } from '../wire/error-info';
import { redactSecrets } from '../wire/redaction';
import { CHAT_MODES, ChatMode } from '../features/chat/plan-mode';
import { benchChat, benchComplete, BenchHost, BenchOutcome, benchRefactor, benchToolSettings } from './bench-features';
import { EvalRequest } from './eval-command';
import { benchFimEval } from './fim-eval-command';
import { benchNesDataset, benchNesEval } from './nes-eval-command';
import { parseRange, splitAtMarker, splitAtPosition } from './source-position';

export const EXIT = { finished: 0, failed: 1, usage: 2, cancelled: 130 } as const;
/** How an eval run's outcome exits the process. */
const EVAL_EXIT = { finished: EXIT.finished, failed: EXIT.failed, cancelled: EXIT.cancelled } as const;

/** Where the CLI writes; tests pass their own. */
export interface BenchIo {
    out(line: string): void;
    err(line: string): void;
    env: Readonly<Record<string, string | undefined>>;
    cwd: string;
    home?: string;
    /** Fires when the user presses Ctrl+C. */
    onInterrupt(handler: () => void): () => void;
}

class UsageError extends Error { }

const USAGE = `qodeassist-bench — run QodeAssist agents headless, on the same core as the IDE.

Usage:
  qodeassist-bench validate [--config-dir DIR]
  qodeassist-bench agents [--json]
  qodeassist-bench chat --agent NAME --message TEXT [--file PATH]... [--tools [--allow read,write]] [--mode plan|act] [--json]
  qodeassist-bench complete --agent NAME --file PATH (--line L --column C | --cursor-marker MARK) [--json]
  qodeassist-bench refactor --agent NAME --file PATH --range L1:C1-L2:C2 --instruction TEXT [--json]
  qodeassist-bench fim-eval --dataset FILE [--agent NAME] [--limit N] [--out FILE] [--open-files-tokens N] [--json]
  qodeassist-bench nes-eval --dataset FILE [--agent NAME] [--limit N] [--out FILE] [--json]
  qodeassist-bench nes-dataset --file OLD --file NEW [--file OLD --file NEW]... --out FILE

fim-eval runs each case of a JSONL dataset through the IDE's completion engine and prints exact match,
edit similarity, pass@1 (cases with tests), p50/p95 latency and errors; --out writes one JSON line per case,
--timeout limits each case, --agent defaults to the completion roster's pick per file. A case's test command
runs code from the dataset (no shell, no keys in its environment, time-limited): use datasets you trust.

Global options:
  --config-dir DIR     user configuration folder (default ~/.qodeassist)
  --workspace DIR      project folder for the tools and files (default: the current folder)
  --trust-workspace    also load the workspace's own configuration (.qodeassist/agents, providers, roles,
                       partials, skills, .claude/skills): only for a repository you trust
  --provider-url URL   send to this base URL instead of the agent's provider URL (with the agent's key;
                       under an administrator's allowed_origins, only to an allowed origin)
  --env FILE           read API keys (<REF>_API_KEY=…) from this .env file; ./.env is read only with --env
                       or --trust-workspace (a repository's .env is the repository's, not yours)
  --timeout S          give up after S seconds (exit 1)
  --tools              let the agent use the project tools, confined to --workspace (the terminal and
                       build_project only with --trust-workspace, as in an untrusted IDE workspace)
  --allow CLASSES      tool permission classes granted without asking: read (default), write, execute,
                       protected-write (writes to .qodeassist, .theia, .vscode, .claude, .git and ignore files too)
  --build-command CMD  what build_project runs, e.g. "npm run build" (without it, build_project is not offered)

Exit codes: 0 finished, 1 failed (the error category is printed), 2 usage, 130 cancelled (Ctrl+C).`;

const OPTIONS = {
    'config-dir': { type: 'string' }, 'workspace': { type: 'string' }, 'provider-url': { type: 'string' }, 'env': { type: 'string' },
    'timeout': { type: 'string' }, 'json': { type: 'boolean' }, 'agent': { type: 'string' }, 'message': { type: 'string' },
    'file': { type: 'string', multiple: true }, 'line': { type: 'string' }, 'column': { type: 'string' }, 'cursor-marker': { type: 'string' },
    'range': { type: 'string' }, 'instruction': { type: 'string' }, 'help': { type: 'boolean', short: 'h' },
    'tools': { type: 'boolean' }, 'allow': { type: 'string' }, 'build-command': { type: 'string' }, 'trust-workspace': { type: 'boolean' },
    'dataset': { type: 'string' }, 'limit': { type: 'string' }, 'mode': { type: 'string' }, 'out': { type: 'string' }, 'open-files-tokens': { type: 'string' }
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** The CLI composition root: a runtime like the IDE's (`.env` secrets, no Theia) and the IDE's own chat, completion and refactor features. */
export async function runBench(argv: readonly string[], rawIo: BenchIo): Promise<number> {
    // Tool results, arguments and errors are printed: every key this process read is removed by value, and key shapes too.
    const io: BenchIo = { ...rawIo, out: line => rawIo.out(redactSecrets(line)), err: line => rawIo.err(redactSecrets(line)) };
    let values: Values;
    let command: string | undefined;
    try {
        const parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
        values = parsed.values;
        command = parsed.positionals[0];
        if (parsed.positionals.length > 1) {
            throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[1])}`);
        }
    } catch (error) {
        io.err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
        return EXIT.usage;
    }
    if (values.help || !command) {
        (command ? io.out : io.err)(USAGE);
        return values.help ? EXIT.finished : EXIT.usage;
    }
    const context = new BenchContext(values, io);
    try {
        switch (command) {
            case 'validate': return context.validate();
            case 'agents': return context.agents();
            case 'chat': return await context.chat();
            case 'complete': return await context.complete();
            case 'refactor': return await context.refactor();
            case 'fim-eval': return await context.fimEval();
            case 'nes-eval': return await context.nesEval();
            case 'nes-dataset': return context.nesDataset();
            default: throw new UsageError(`unknown command ${JSON.stringify(command)}`);
        }
    } catch (error) {
        if (error instanceof UsageError || error instanceof RangeError) {
            io.err(`${error.message}\n\nRun qodeassist-bench --help for usage.`);
            return EXIT.usage;
        }
        const info = toErrorInfo(error);
        io.err(`${info.category}: ${info.message}${info.providerDetail ? `\n  provider said: ${info.providerDetail}` : ''}`);
        return EXIT.failed;
    } finally {
        context.dispose();
    }
}

class BenchContext {
    private configurationCache: ConfigurationService | undefined;
    private runtimeCache: QodeAssistRuntime | undefined;

    constructor(private readonly values: Values, private readonly io: BenchIo) { }

    private get workspace(): string {
        return resolve(this.io.cwd, this.values.workspace ?? '.');
    }

    /** The workspace whose own configuration is read: only with --trust-workspace; otherwise one notice names what was skipped. */
    private get trustedWorkspace(): string | undefined {
        if (this.values['trust-workspace']) {
            return this.workspace;
        }
        const skipped = projectLayerEntries(this.workspace);
        if (skipped.length && !this.untrustedNoticeShown) {
            this.untrustedNoticeShown = true;
            this.io.err(`Notice: ${untrustedProjectNotice(skipped)}. Pass --trust-workspace to load it.`);
        }
        return undefined;
    }

    private untrustedNoticeShown = false;

    /** The run's configuration, loaded once (not watched: a run is short). */
    private get configurationService(): ConfigurationService {
        if (!this.configurationCache) {
            const roots = defaultConfigRoots(this.trustedWorkspace, this.io.home, this.workspace, this.io.env);
            const configDir = this.values['config-dir'];
            // --config-dir names the user layer outright: the state dir's checks are about the state dir.
            this.configurationCache = new ConfigurationService(configDir ? { ...roots, user: resolve(this.io.cwd, configDir), userRefused: undefined } : roots);
        }
        return this.configurationCache;
    }

    private get configuration(): Configuration {
        return this.configurationService.current;
    }

    /**
     * The run's composition of the core, as the IDE composes one per window: `.env` secrets,
     * --provider-url, the user's skill folders, and the user's spend ledger — the IDE's own file
     * (state dir, else home), whatever --config-dir says, so a run counts against the same limit.
     */
    private get runtime(): QodeAssistRuntime {
        if (!this.runtimeCache) {
            const providerUrl = this.values['provider-url'];
            if (providerUrl !== undefined) {
                this.assertProviderUrlAllowed(providerUrl);
            }
            const home = qodeassistHome(this.io.env, this.io.home ?? homedir());
            this.runtimeCache = new QodeAssistRuntime({
                secrets: this.secrets,
                // The user home is --config-dir's parent when given: its skills folders sit beside the configuration.
                userHome: this.values['config-dir'] ? dirname(resolve(this.io.cwd, this.values['config-dir'])) : this.io.home,
                spendLedger: spendLedgerPath(home),
                resolveAgent: providerUrl
                    ? async (agent, secrets) => {
                        // Checked again with the policy as it is now, before the key is read.
                        this.assertProviderUrlAllowed(providerUrl);
                        return { ...await sessionAgentFor(agent, secrets), url: endpointUrl(providerUrl, agent.endpoint, agent.model) };
                    }
                    : undefined
            });
        }
        return this.runtimeCache;
    }

    /** --provider-url carries the agent's key elsewhere: under a policy, only to an allowed origin. */
    private assertProviderUrlAllowed(providerUrl: string): void {
        const refusal = originRefusal(this.configuration.policy, providerUrl);
        if (refusal !== undefined) {
            throw new QodeAssistError({ category: 'Config', message: `--provider-url ${providerUrl} is ${MANAGED_LABEL}: ${refusal}. Nothing was sent.` });
        }
    }

    /** Keys from the environment, and from a .env only when asked: --env FILE, or ./.env with --trust-workspace (a repository may ship one). */
    private get secrets(): SecretsStore {
        const here = join(this.io.cwd, '.env');
        const envFile = this.values.env ? resolve(this.io.cwd, this.values.env) : this.values['trust-workspace'] ? here : undefined;
        if (this.values.env && !existsSync(envFile!)) {
            throw new UsageError(`the --env file ${envFile} does not exist`);
        }
        if (envFile === undefined && existsSync(here) && !this.envNoticeShown) {
            this.envNoticeShown = true;
            this.io.err(`Notice: ${here} is not read (it may be the repository's). Pass --env .env to read keys from it.`);
        }
        const stores = envFile ? [new DotEnvSecretsStore(envFile), new EnvironmentSecretsStore(this.io.env)] : [new EnvironmentSecretsStore(this.io.env)];
        // Recording: a key read from the .env or the environment is redacted from every error printed from then on.
        return new RecordingSecretsStore(new ChainedSecretsStore(stores));
    }

    private envNoticeShown = false;

    validate(): number {
        const issues = this.configuration.issues;
        for (const issue of issues) {
            this.io.out(formatIssue(issue));
        }
        const errors = issues.filter(issue => issue.severity === 'error').length;
        this.io.out(`${this.configuration.agents.size} agents, ${this.configuration.providers.size} providers, ${this.configuration.roles.size} roles; ${errors} error(s), ${issues.length - errors} notice(s).`);
        return errors > 0 ? EXIT.failed : EXIT.finished;
    }

    agents(): number {
        const rows = [...this.configuration.agents.values()].sort((a, b) => a.name.localeCompare(b.name)).map(agent => ({
            name: agent.name, provider: agent.provider.instance.name, client_api: agent.provider.instance.client_api, model: agent.model,
            protocol: agent.protocol, rosters: PIPELINES.filter(pipeline => this.configuration.rosters[pipeline].includes(agent.name))
        }));
        if (this.values.json) {
            rows.forEach(row => this.io.out(JSON.stringify(row)));
        } else {
            for (const row of rows) {
                this.io.out(`${row.name.padEnd(28)} ${`${row.provider} (${row.client_api})`.padEnd(40)} ${row.model.padEnd(30)} ${row.rosters.join(', ')}`);
            }
        }
        return EXIT.finished;
    }

    async chat(): Promise<number> {
        const message = this.required('message');
        return this.finish(await benchChat(this.host(), {
            agent: this.agent().name, message, files: (this.values.file ?? []).map(file => this.path(file)), tools: this.tools(), allow: this.allowed(), mode: this.mode()
        }));
    }

    /** --mode plan: read-class tools only and a plan asked for, as the chat's plan mode; act (the default) as the chat's Act. */
    private mode(): ChatMode | undefined {
        const mode = this.values.mode;
        if (mode !== undefined && !CHAT_MODES.includes(mode as ChatMode)) {
            throw new UsageError(`--mode must be ${CHAT_MODES.join(' or ')}, not "${mode}".`);
        }
        return mode as ChatMode | undefined;
    }

    async complete(): Promise<number> {
        const file = this.required('file');
        const path = this.path(file);
        const text = readFileSync(path, 'utf8');
        const marker = this.values['cursor-marker'];
        if (!marker && (this.values.line === undefined || this.values.column === undefined)) {
            throw new UsageError('complete needs --line and --column, or --cursor-marker');
        }
        const split = marker ? splitAtMarker(text, marker) : splitAtPosition(text, Number(this.values.line), Number(this.values.column));
        return this.finish(await benchComplete(this.host(), { agent: this.agent().name, path, relativePath: file, split }));
    }

    /** The quick refactor's own prompt (the `refactor` layer, the instruction as the message) and cleaning, as in the IDE. */
    async refactor(): Promise<number> {
        const file = this.required('file');
        const instruction = this.required('instruction');
        const path = this.path(file);
        const selection = parseRange(readFileSync(path, 'utf8'), this.required('range'));
        return this.finish(await benchRefactor(this.host(), {
            agent: this.agent().name, path, relativePath: file, selection, instruction, tools: this.tools(), allow: this.allowed()
        }));
    }

    /** The quality harness: a dataset through the completion engine, scored; --timeout is per case, Ctrl+C stops with a summary. */
    async fimEval(): Promise<number> {
        const request = { ...this.evalRequest(), openFilesTokens: this.count('open-files-tokens', 0) ?? 0 };
        return EVAL_EXIT[await benchFimEval(this.host(), request)];
    }

    /** Next edit suggestions over a dataset of real edit sequences, scored; --timeout is per case. */
    async nesEval(): Promise<number> {
        return EVAL_EXIT[await benchNesEval(this.host(), this.evalRequest())];
    }

    /** The options fim-eval and nes-eval share: the dataset (it must exist), agent, limit, --out, --timeout per case, Ctrl+C. */
    private evalRequest(): EvalRequest & { caseTimeoutMs?: number } {
        const dataset = resolve(this.io.cwd, this.required('dataset'));
        if (!existsSync(dataset)) {
            throw new UsageError(`the --dataset file ${dataset} does not exist`);
        }
        return {
            dataset, agent: this.values.agent === undefined ? undefined : this.agent().name, limit: this.count('limit', 1),
            out: this.values.out ? resolve(this.io.cwd, this.values.out) : undefined,
            caseTimeoutMs: this.caseTimeoutMs(), onInterrupt: handler => this.io.onInterrupt(handler)
        };
    }

    /** A nes-eval dataset cut from pairs of versions of files (real history: e.g. two published versions of a package). */
    nesDataset(): number {
        const files = (this.values.file ?? []).map(file => resolve(this.io.cwd, file));
        const missing = files.find(file => !existsSync(file));
        if (missing) {
            throw new UsageError(`the --file ${missing} does not exist`);
        }
        benchNesDataset(this.host(), files, resolve(this.io.cwd, this.required('out')));
        return EXIT.finished;
    }

    private caseTimeoutMs(): number | undefined {
        const seconds = this.values.timeout;
        if (seconds !== undefined && !(Number(seconds) > 0)) {
            throw new UsageError(`--timeout takes a number of seconds above 0, not ${JSON.stringify(seconds)}`);
        }
        return seconds === undefined ? undefined : Number(seconds) * 1000;
    }

    /** A whole-number option, at least `min`. */
    private count(option: 'limit' | 'open-files-tokens', min: number): number | undefined {
        const value = this.values[option];
        if (value === undefined) {
            return undefined;
        }
        if (!/^\d+$/.test(value) || Number(value) < min) {
            throw new UsageError(`--${option} takes a whole number of at least ${min}, not ${JSON.stringify(value)}`);
        }
        return Number(value);
    }

    /** What the features print to and stop by: --timeout and Ctrl+C cancel the run. */
    private host(): BenchHost {
        return {
            runtime: this.runtime, configurations: { forWorkspace: () => this.configurationService }, workspace: this.workspace, json: !!this.values.json,
            out: line => this.io.out(line), err: line => this.io.err(line),
            onStop: stop => {
                const seconds = this.values.timeout;
                const timer = seconds ? setTimeout(() => { this.timedOut = true; stop(); }, Number(seconds) * 1000) : undefined;
                const stopInterrupt = this.io.onInterrupt(stop);
                return () => {
                    clearTimeout(timer);
                    stopInterrupt();
                };
            }
        };
    }

    private timedOut = false;

    /** Ends the run's runtime (skills watchers, pools), whichever way the command ended. */
    dispose(): void {
        this.runtimeCache?.dispose();
    }

    private finish(outcome: BenchOutcome): number {
        if ('text' in outcome) {
            if (!this.values.json) {
                this.io.out(outcome.text);
            }
            return EXIT.finished;
        }
        if ('error' in outcome) {
            this.io.err(`${outcome.error.category}: ${outcome.error.message}${outcome.error.providerDetail ? `\n  provider said: ${outcome.error.providerDetail}` : ''}`);
            return EXIT.failed;
        }
        if (this.timedOut) {
            this.io.err(`Network: no answer within ${this.values.timeout} s (--timeout).`);
            return EXIT.failed;
        }
        this.io.err('Cancelled.');
        return EXIT.cancelled;
    }

    /** --tools: the built-in tools, confined to the workspace. */
    private tools(): ToolSettings | undefined {
        return this.values.tools ? benchToolSettings(this.values['build-command']) : undefined;
    }

    /** The permission classes of --allow, granted without asking. */
    private allowed(): PermissionGrant[] {
        const classes = (this.values.allow ?? 'read').split(',').map(item => item.trim()).filter(Boolean);
        const unknown = classes.filter(item => !['read', 'write', 'execute', 'protected-write'].includes(item));
        if (unknown.length > 0) {
            throw new UsageError(`--allow takes read, write, protected-write and execute, not ${unknown.join(', ')}`);
        }
        return classes as PermissionGrant[];
    }

    private agent(): ResolvedAgent {
        const name = this.required('agent');
        const agent = this.configuration.agents.get(name);
        const refusal = agent ? undefined : managedAgentRefusal(this.configuration, name);
        if (refusal) {
            throw new QodeAssistError({ category: 'Config', message: `${refusal} List the agents you may use with: qodeassist-bench agents` });
        }
        if (!agent) {
            const problems = this.configuration.issues.filter(issue => issue.file.includes(name)).map(formatIssue);
            throw new UsageError(`no agent named ${JSON.stringify(name)}${problems.length ? `:\n${problems.join('\n')}` : ''}; list them with: qodeassist-bench agents`);
        }
        return agent;
    }

    private required(option: 'agent' | 'message' | 'file' | 'instruction' | 'range' | 'dataset' | 'out'): string {
        const value = option === 'file' ? this.values.file?.[0] : this.values[option];
        if (value === undefined || value === '') {
            throw new UsageError(`missing --${option}`);
        }
        return value;
    }

    private path(file: string): string {
        const path = isAbsolute(file) ? file : resolve(this.workspace, file);
        if (!existsSync(path)) {
            throw new UsageError(`the file ${path} does not exist`);
        }
        return path;
    }
}
