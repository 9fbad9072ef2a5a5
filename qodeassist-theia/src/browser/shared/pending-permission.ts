import type { AcpPermissionAnswer, AcpPermissionRequest, PermissionAnswer, PermissionRequest } from '@qodeassist/core';

/** A tool's permission request waiting for the user's answer in a chat or an inline refactor. */
export interface PendingPermission {
    id: number;
    request: PermissionRequest;
    answer(answer: PermissionAnswer): void;
    /**
     * Set when an external (ACP) agent asks: its tool call and its own options, one button each.
     * `answer('deny')` (the request ended, the view closed) closes the prompt unanswered.
     */
    agent?: { request: AcpPermissionRequest; choose(optionId: string): void };
}

const CLASS_OF_KIND: Partial<Record<AcpPermissionRequest['toolCall']['kind'], PermissionRequest['permission']>> = {
    edit: 'write', delete: 'write', move: 'write', execute: 'execute'
};

/**
 * An external agent's question as a pending prompt: shown with the agent's options; `choose`
 * answers with one of them, `answer` (only ever 'deny' here: the request ended, the view closed)
 * closes it unanswered. Settles once.
 */
export function agentPermission(id: number, chatId: string, request: AcpPermissionRequest, resolve: (answer: AcpPermissionAnswer) => void): PendingPermission {
    let settled = false;
    const settle = (answer: AcpPermissionAnswer) => {
        if (!settled) {
            settled = true;
            resolve(answer);
        }
    };
    return {
        id,
        request: {
            tool: request.toolCall.title, permission: CLASS_OF_KIND[request.toolCall.kind] ?? 'read', arguments: {}, chatId,
            ...(request.protectedPath !== undefined ? { protectedPath: request.protectedPath } : {})
        },
        answer: () => settle({ cancelled: true }),
        agent: { request, choose: optionId => settle({ optionId }) }
    };
}
