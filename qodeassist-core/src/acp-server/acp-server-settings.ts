import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ChainedSecretsStore, DotEnvSecretsStore, EnvironmentSecretsStore, FileSecretsStore, RecordingSecretsStore, SecretsStore } from '../config/secrets-store';
import { LogLevel } from '../ports/logger';
import { ToolSettings } from '../runtime/request-tools';
import { QodeAssistError } from '../wire/error-info';

export const ACP_USAGE = `qodeassist-acp — QodeAssist's chat as an Agent Client Protocol (ACP) agent on stdin/stdout,
for Zed, JetBrains IDEs and other ACP clients. The client starts it; it is not run by hand.

Usage:
  qodeassist-acp [--config-dir DIR] [--trust-workspace DIR]... [--env FILE] [--build-command CMD]
                 [--allow-command PROGRAM]... [--log-level debug|info|warn|error]

  --config-dir DIR        user configuration folder (default ~/.qodeassist): agents, providers, roles;
                          the sessions' chats are kept in its chats/ folder
  --trust-workspace DIR   read the own configuration (.qodeassist/agents, providers, roles, skills,
                          .claude/skills) of sessions in DIR or below, and let the agent run commands
                          there; repeat it for more folders. Without it a project is data only.
  --env FILE              read API keys (<REF>_API_KEY=…) from this .env file
  --build-command CMD     what build_project runs in a trusted folder, e.g. "npm run build"
  --allow-command PROG    a program execute_terminal_command may start (default: the built-in list)
  --log-level LEVEL       what goes to stderr (default info); stdout carries only the protocol

API keys come from the environment (<REF>_API_KEY, e.g. ANTHROPIC_API_KEY), the --env file, and
the secrets file of the configuration folder (secrets.json, mode 0600). They are never sent to the client.`;

/** How the server runs, from its command line and environment. */
export interface AcpServerSettings {
    /** The user configuration folder (`~/.qodeassist`). */
    userRoot: string;
    /** The user's home: skill folders, and the bundled default for `userRoot`. */
    home: string;
    trusted: string[];
    secrets: SecretsStore;
    tools: ToolSettings;
    logLevel: LogLevel;
}

const OPTIONS = {
    'config-dir': { type: 'string' }, 'trust-workspace': { type: 'string', multiple: true }, 'env': { type: 'string' },
    'build-command': { type: 'string' }, 'allow-command': { type: 'string', multiple: true }, 'log-level': { type: 'string' },
    'help': { type: 'boolean', short: 'h' }
} as const;

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

function usageError(message: string): QodeAssistError {
    return new QodeAssistError({ category: 'Config', message: `${message}\n\n${ACP_USAGE}` });
}

/** The settings of a command line; `help` when it asks for the usage. A bad one is a Config error naming the option and the fix. */
export function acpServerSettings(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd: string): AcpServerSettings | 'help' {
    let values;
    try {
        const parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: false, strict: true });
        values = parsed.values;
    } catch (error) {
        throw usageError(error instanceof Error ? error.message : String(error));
    }
    if (values.help) {
        return 'help';
    }
    const home = env.HOME || homedir();
    const userRoot = values['config-dir'] ? resolve(cwd, values['config-dir']) : join(home, '.qodeassist');
    const logLevel = (values['log-level'] ?? 'info') as LogLevel;
    if (!LEVELS.includes(logLevel)) {
        throw usageError(`--log-level takes ${LEVELS.join(', ')}, not ${JSON.stringify(values['log-level'])}`);
    }
    const envFile = values.env ? resolve(cwd, values.env) : undefined;
    if (envFile && !existsSync(envFile)) {
        throw usageError(`the --env file ${envFile} does not exist`);
    }
    const stores: SecretsStore[] = [
        ...envFile ? [new DotEnvSecretsStore(envFile)] : [],
        new EnvironmentSecretsStore(env),
        new FileSecretsStore(join(userRoot, 'secrets.json'))
    ];
    return {
        userRoot, home, logLevel,
        trusted: (values['trust-workspace'] ?? []).map(folder => resolve(cwd, folder)),
        // Recording: every key read is redacted by value from errors, logs and what the client is shown.
        secrets: new RecordingSecretsStore(new ChainedSecretsStore(stores)),
        tools: {
            disabled: [], allowedCommands: values['allow-command'] ?? [], commandTimeoutSeconds: 60, commandOutputLimit: 30_000,
            buildCommand: values['build-command'] ?? '', allowOutsideWorkspace: false, useGitignore: true
        }
    };
}
