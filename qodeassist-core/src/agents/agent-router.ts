import * as picomatch from 'picomatch';
import { Configuration, ResolvedAgent } from './configuration-loader';
import { Pipeline } from '../config/schemas';
import { agentChainRefusal, MANAGED_LABEL } from '../config/managed-policy';
import { QodeAssistError } from '../wire/error-info';

/** What the router knows about the request: the file in focus (workspace-relative) and the project. */
export interface RoutingContext {
    /** Workspace-relative path with `/` separators, when a file is in focus. */
    file?: string;
    /** The project (workspace folder) name. */
    project?: string;
}

function matchesAny(patterns: readonly string[], value: string | undefined): boolean {
    if (patterns.length === 0) {
        return true;
    }
    if (value === undefined) {
        return false;
    }
    return patterns.some(pattern => picomatch.isMatch(value, pattern, { dot: true }));
}

/** Whether an agent's `[match]` fits: empty lists match anything; every given list must match. */
export function agentMatches(agent: ResolvedAgent, context: RoutingContext): boolean {
    const basename = context.file?.split('/').pop();
    return matchesAny(agent.match.file, basename)
        && matchesAny(agent.match.path, context.file)
        && matchesAny(agent.match.project, context.project);
}

/** The only agent picker: the first agent of the pipeline's roster whose rules fit. */
export function pickAgent(configuration: Configuration, pipeline: Pipeline, context: RoutingContext = {}): ResolvedAgent | undefined {
    for (const name of configuration.rosters[pipeline]) {
        const agent = configuration.agents.get(name);
        if (agent && agentMatches(agent, context)) {
            return agent;
        }
    }
    return undefined;
}

/**
 * Why a named agent is not available when the administrator's policy left it out, as a sentence
 * naming the administrator and the rule; undefined when the name is simply unknown (or allowed).
 */
export function managedAgentRefusal(configuration: Configuration, name: string): string | undefined {
    const rule = configuration.managedRefusals?.get(name) ?? agentChainRefusal(configuration.policy, [name]);
    return rule === undefined ? undefined : `The agent "${name}" is ${MANAGED_LABEL}: ${rule}.`;
}

/** For "no agent fits": how many agents the administrator's policy left out, and the first one's rule; empty when none. */
export function managedRosterNote(configuration: Configuration, pipeline: Pipeline): string {
    const refusals = [...configuration.managedRefusals ?? []];
    if (refusals.length === 0) {
        return '';
    }
    const [name, rule] = refusals[0];
    return ` ${refusals.length} agent(s) are ${MANAGED_LABEL} (e.g. "${name}": ${rule}), which may be why no ${pipeline} agent is left.`;
}

/**
 * The agent a single-agent pipeline (completion, next edit) runs: the one the user named, or the
 * first of the roster that fits the file. Either missing is a configuration error that says why
 * (the administrator's policy, an empty roster) and what to add (`rosterHint`).
 */
export function agentForPipeline(
    configuration: Configuration, pipeline: Pipeline, context: RoutingContext, named: string | undefined, what: string, rosterHint: string
): ResolvedAgent {
    if (named) {
        const agent = configuration.agents.get(named);
        if (!agent) {
            throw new QodeAssistError({ category: 'Config', message: managedAgentRefusal(configuration, named) ?? `There is no agent named "${named}".` });
        }
        return agent;
    }
    const agent = pickAgent(configuration, pipeline, context);
    if (!agent) {
        throw new QodeAssistError({
            category: 'Config',
            message: `No ${what} agent is available: the [${pipeline}] roster is empty or none of its agents fits this file.${managedRosterNote(configuration, pipeline)} ${rosterHint}`
        });
    }
    return agent;
}
