import type { PermissionAnswer, PermissionRequest } from '@qodeassist/core';

/** A tool's permission request waiting for the user's answer in a chat or an inline refactor. */
export interface PendingPermission {
    id: number;
    request: PermissionRequest;
    answer(answer: PermissionAnswer): void;
}
