import { nls } from '@theia/core';
import { AgentChoice } from '../../common/chat-protocol';

/**
 * The line an agent's tooltip adds when the workspace's own files decide where it sends or what
 * it runs: "from this project: sends to http://…" — so a repository's provider or agent is never
 * picked unknowingly.
 */
export function projectOriginText(choice: Pick<AgentChoice, 'projectOrigin'> | undefined): string | undefined {
    const origin = choice?.projectOrigin;
    if (!origin) {
        return undefined;
    }
    if (origin.runs !== undefined) {
        return nls.localize('qodeassist/chat/projectRuns', 'from this project ({0}): runs {1}', origin.file, origin.runs);
    }
    return origin.insteadOf
        ? nls.localize('qodeassist/chat/projectSendsInstead', 'from this project ({0}): sends to {1}, not to your {2}', origin.file, origin.sendsTo ?? '?', origin.insteadOf)
        : nls.localize('qodeassist/chat/projectSends', 'from this project ({0}): sends to {1}', origin.file, origin.sendsTo ?? '?');
}
