import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse, ToolCallContent } from '@agentclientprotocol/sdk';
import { PermissionAnswer, PermissionRequest } from '../ports/permission-prompt';
import { redactKnownValues } from '../wire/redaction';
import { proposedEdit } from './file-edit-diff';
import { absoluteIn, toolCallView } from './tool-call-view';

/** The option ids QodeAssist offers; each maps to one of the chat's answers. */
const ANSWERS: Readonly<Record<string, PermissionAnswer>> = { 'allow-once': 'allow-once', 'allow-always': 'allow-chat', 'reject': 'deny' };

/**
 * The choices the user gets: allow once, allow this tool for the rest of the session (the chat's
 * "allow for this chat"), reject. A write to a protected place (configuration, ignore rules) is
 * asked every time, so it has no "always".
 */
export function permissionOptions(request: PermissionRequest): PermissionOption[] {
    return [
        { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
        ...request.protectedPath === undefined ? [{ optionId: 'allow-always', name: `Always allow ${request.tool} in this session`, kind: 'allow_always' as const }] : [],
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' }
    ];
}

/** The client's answer as the chat's: a cancelled question or an unknown option is a refusal (nothing runs). */
export function permissionAnswer(response: RequestPermissionResponse, request: PermissionRequest): PermissionAnswer {
    if (response.outcome.outcome !== 'selected') {
        return 'deny';
    }
    const answer = ANSWERS[response.outcome.optionId] ?? 'deny';
    return answer === 'allow-chat' && request.protectedPath !== undefined ? 'allow-once' : answer;
}

/**
 * The `session/request_permission` of a tool call the chat asks about: the call's kind, title,
 * locations and exact arguments, and for a file edit the diff it would make (from the file's
 * current text, `current`), so the user sees the change before anything is written.
 */
export function permissionQuestion(
    sessionId: string, toolCallId: string, request: PermissionRequest, cwd: string, current: string | undefined
): RequestPermissionRequest {
    const view = toolCallView(request.tool, request.arguments, cwd);
    const content: ToolCallContent[] = [];
    const path = typeof request.arguments.path === 'string' ? absoluteIn(cwd, request.arguments.path) : undefined;
    const edit = path ? proposedEdit(request.tool, request.arguments, current) : undefined;
    if (path && edit) {
        content.push({ type: 'diff', path, oldText: edit.oldText === null ? null : redactKnownValues(edit.oldText), newText: redactKnownValues(edit.newText) });
    }
    if (request.protectedPath !== undefined) {
        content.push({ type: 'content', content: { type: 'text', text: `This writes to ${request.protectedPath}, a configuration or ignore file: it is asked every time.` } });
    }
    return {
        sessionId,
        toolCall: { toolCallId, ...view, status: 'pending', rawInput: request.arguments, ...content.length ? { content } : {} },
        options: permissionOptions(request)
    };
}
