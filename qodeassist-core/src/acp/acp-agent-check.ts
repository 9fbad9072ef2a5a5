import { AcpAgentEntry, mayStart } from '../config/acp-agent-config';
import { WorkspaceFiles } from '../tools/workspace-files';
import { toErrorInfo } from '../wire/error-info';
import { AcpAgentClient } from './acp-agent-client';
import { AcpAgentDefinition, commandLineOf } from './acp-definition';
import { AgentGateway, agentGatewayFrom, gatewayRefusal } from './agent-gateway';
import { findAgentProgram } from './agent-process';

/** Where an external agent's program is, or why it cannot start; and the command line it runs. */
export interface AcpAgentStatus {
    commandLine: string;
    /** The program found on PATH (outside the workspace), when it is. */
    installedAt?: string;
    /** Why it cannot start (not found, inside the workspace, not pointable at the gateway), with how to install it when the file says. */
    problem?: string;
    /** Gateway mode, and it cannot be pointed at the gateway: `problem` says why (it is not looked for on PATH). */
    unavailableInGateway?: boolean;
}

/** What the `initialize` handshake told of the agent, or why it failed. */
export type AcpAgentTest =
    | {
        status: 'ok'; protocolVersion: number; name?: string; title?: string; version?: string;
        loadSession: boolean; prompt: { image: boolean; audio: boolean; embeddedContext: boolean }; authMethods: string[];
    }
    | { status: 'error'; message: string };

function definitionOf(entry: AcpAgentEntry): AcpAgentDefinition {
    return { name: entry.name, command: entry.command, args: [...entry.args], env: [...entry.env], ...(entry.gateway ? { gateway: { ...entry.gateway } } : {}) };
}

/** Why a project's entry may not start yet: the user has not consented to it as it is now. */
export function awaitingConsentProblem(entry: AcpAgentEntry): string {
    return `"${entry.name}" comes from this project (${entry.file.label}) and waits for your consent: review what it runs and the variables it gets, then allow it (configuration view, External agents: Review and allow…).`;
}

/** Why an agent cannot start in gateway mode (the view's and the picker's reason), or undefined: not gateway mode, or it can be pointed at the gateway. */
export function gatewayProblem(entry: AcpAgentEntry, env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
    let gateway: AgentGateway | undefined;
    try {
        gateway = agentGatewayFrom(env);
    } catch (error) {
        return error instanceof Error ? error.message : String(error);
    }
    const refusal = gateway && gatewayRefusal(definitionOf(entry), gateway);
    return refusal ? `Unavailable in gateway mode: it ${refusal.reason}. ${refusal.fix}` : undefined;
}

/**
 * The configuration view's row for an agent: installed where, or why not (a project's without consent
 * is not looked for); in gateway mode, one that cannot be pointed at the gateway is unavailable, with why.
 */
export async function acpAgentStatus(entry: AcpAgentEntry, workspaceRoots: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env): Promise<AcpAgentStatus> {
    const definition = definitionOf(entry);
    const commandLine = commandLineOf(definition);
    if (!mayStart(entry)) {
        return { commandLine, problem: awaitingConsentProblem(entry) };
    }
    const unavailable = gatewayProblem(entry, env);
    if (unavailable) {
        return { commandLine, problem: unavailable, unavailableInGateway: true };
    }
    try {
        return { commandLine, installedAt: await findAgentProgram(definition, workspaceRoots, env) };
    } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // A program inside the workspace is refused with its own reason; otherwise it is simply not installed.
        const why = message.includes('inside the workspace') ? message : `${entry.command} is not installed (not found on PATH outside the workspace).`;
        return { commandLine, problem: entry.install ? `${why} Install it: ${entry.install}` : why };
    }
}

/** Seconds the handshake may take (an agent started through npx downloads itself first). */
const TEST_SECONDS = 60;

/**
 * Test: starts the agent contained as a chat would, runs `initialize` and stops its whole process
 * tree. It offers no file writes and no terminals, and answers every question with "no"; it reads
 * nothing, as no session is opened. A project's entry without the user's consent is not started at all.
 */
export async function testAcpAgent(entry: AcpAgentEntry, workspaceRoots: readonly string[]): Promise<AcpAgentTest> {
    if (!mayStart(entry)) {
        return { status: 'error', message: awaitingConsentProblem(entry) };
    }
    const client = new AcpAgentClient(definitionOf(entry), {
        host: {
            files: new WorkspaceFiles([...workspaceRoots]), fileSystem: { read: false, write: false }, terminal: false,
            requestPermission: async () => ({ cancelled: true })
        },
        limits: { initializeSeconds: TEST_SECONDS }
    });
    try {
        const info = await client.start();
        return {
            status: 'ok', protocolVersion: info.protocolVersion, ...(info.name ? { name: info.name } : {}), ...(info.title ? { title: info.title } : {}),
            ...(info.version ? { version: info.version } : {}), loadSession: info.loadSession, prompt: info.prompt, authMethods: info.authMethods.map(method => method.name)
        };
    } catch (error) {
        const info = toErrorInfo(error);
        // The agent's own last words (a missing login, a wrong flag) say most.
        return { status: 'error', message: info.providerDetail ? `${info.message}\n${info.providerDetail}` : info.message };
    } finally {
        await client.close();
    }
}
