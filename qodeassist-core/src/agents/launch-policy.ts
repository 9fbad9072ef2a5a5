import { ConfigIssue, findKeyLine } from '../config/config-issue';
import { LoadedProvider } from '../config/configuration-source';

/**
 * Why a provider's `[launch]` is never used, or undefined when it may be: a repository's
 * provider file is data, never a program to run (docs/ARCHITECTURE.md §7), and only a server on
 * this machine can be started.
 */
export function launchRefusal(provider: LoadedProvider): string | undefined {
    if (!provider.instance.launch) {
        return undefined;
    }
    if (provider.layer === 'project') {
        return `project provider "${provider.instance.name}" has a [launch] section, which QodeAssist never runs from a repository`;
    }
    if (!isLoopback(new URL(provider.url).hostname)) {
        return `provider "${provider.instance.name}" has a [launch] section but its url ${new URL(provider.url).origin} is not on this machine`;
    }
    return undefined;
}

/** A notice per provider whose `[launch]` is ignored, naming its file: loaded with the rest of the configuration. */
export function launchIssues(providers: Iterable<LoadedProvider>): ConfigIssue[] {
    const issues: ConfigIssue[] = [];
    for (const provider of providers) {
        const refusal = launchRefusal(provider);
        if (refusal) {
            issues.push({
                severity: 'notice', file: provider.file.label, line: findKeyLine(provider.file.text, ['launch', 'command']), field: 'launch',
                message: `${refusal}; nothing is started for it`,
                fix: provider.layer === 'project' ? 'start the server yourself, or put the provider file in ~/.qodeassist/providers' : 'remove [launch], or point url at localhost'
            });
        }
    }
    return issues;
}

function isLoopback(hostname: string): boolean {
    return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
