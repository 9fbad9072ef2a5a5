import { AcpAgentDefinition, AcpEvent, AcpHost, AcpPermissionAnswer, AcpPermissionRequest, AcpSession, WorkspaceFiles } from '@qodeassist/core';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AgentScript } from './scripted-acp-agent';

/** The compiled fixture, run with node as the agent's program. */
export const SCRIPTED_AGENT = join(__dirname, 'scripted-acp-agent.js');

/** The fixture as a resolved agent definition, as the configuration layer would give it. */
export function scriptedAgent(script: AgentScript, name = 'scripted'): AcpAgentDefinition {
    return { name, command: process.execPath, args: [SCRIPTED_AGENT, JSON.stringify(script)] };
}

/** A temporary folder with a workspace inside and a place outside it. */
export class Sandbox {
    readonly root = realpathSync(mkdtempSync(join(tmpdir(), 'qodeassist-acp-')));
    readonly workspace = join(this.root, 'workspace');
    readonly outside = join(this.root, 'outside');
    readonly log = join(this.root, 'agent-log.jsonl');

    constructor() {
        mkdirSync(this.workspace, { recursive: true });
        mkdirSync(this.outside, { recursive: true });
    }

    write(path: string, text: string): string {
        const absolute = join(this.root, path);
        mkdirSync(dirname(absolute), { recursive: true });
        writeFileSync(absolute, text);
        return absolute;
    }

    dispose(): void {
        rmSync(this.root, { recursive: true, force: true });
    }
}

/** What the host was asked and did: permission prompts, editor writes; answers come from `answer`. */
export class RecordingHost implements AcpHost {
    readonly files: WorkspaceFiles;
    readonly prompts: AcpPermissionRequest[] = [];
    readonly writes: Array<{ path: string; content: string; created: boolean }> = [];
    /** Open editors' unsaved text by absolute path. */
    readonly editors = new Map<string, string>();
    answer: (request: AcpPermissionRequest, signal: AbortSignal) => Promise<AcpPermissionAnswer> = async request => ({ optionId: request.options[0].optionId });
    documents = { readOpen: async (path: string) => this.editors.get(path) };
    writer = {
        write: async (path: string, content: string, options: { created: boolean }) => {
            this.writes.push({ path, content, created: options.created });
            writeFileSync(path, content);
        }
    };

    constructor(roots: readonly string[]) {
        this.files = new WorkspaceFiles(roots);
    }

    requestPermission(request: AcpPermissionRequest, signal: AbortSignal): Promise<AcpPermissionAnswer> {
        this.prompts.push(request);
        return this.answer(request, signal);
    }
}

/** The events of a session, in order. */
export function recordEvents(session: AcpSession): AcpEvent[] {
    const events: AcpEvent[] = [];
    session.onEvent(event => events.push(event));
    return events;
}

/** The agent message text of events (the fixture echoes answers there). */
export function messageText(events: readonly AcpEvent[]): string {
    return events.map(event => event.type === 'TextDelta' ? event.text : '').join('');
}

/** The answer the fixture echoed for `name` (`name: <json>` on one line). */
export function echoed(events: readonly AcpEvent[], name: string): unknown {
    const line = messageText(events).split('\n').find(candidate => candidate.startsWith(`${name}: `));
    return line === undefined ? undefined : JSON.parse(line.slice(name.length + 2));
}

/** Resolves once `predicate` holds for an event, polling; rejects after `ms`. */
export async function eventually(events: readonly AcpEvent[], predicate: (event: AcpEvent) => boolean, ms = 10_000): Promise<AcpEvent> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
        const found = events.find(predicate);
        if (found) {
            return found;
        }
        await new Promise(resolve => setTimeout(resolve, 20));
    }
    throw new Error(`no such event within ${ms} ms; got ${events.map(event => event.type).join(', ')}`);
}
