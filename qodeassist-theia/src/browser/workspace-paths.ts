import { WorkspaceService } from '@theia/workspace/lib/browser/workspace-service';

/** Where a file sits: its workspace folder (whose `.qodeassist` configuration applies), the folder's name, and the path inside it. */
export function placeOf(workspace: WorkspaceService, path: string): { workspacePath?: string; project?: string; relativePath: string } {
    const root = workspace.tryGetRoots().find(candidate => path.startsWith(`${candidate.resource.path.fsPath()}/`));
    const workspacePath = root?.resource.path.fsPath();
    return { workspacePath, project: root?.name, relativePath: workspacePath ? path.slice(workspacePath.length + 1) : path };
}

/** The first workspace folder's path, whose `.qodeassist` configuration the views use; undefined with no folder open. */
export function firstRootPath(workspace: WorkspaceService): string | undefined {
    return workspace.tryGetRoots()[0]?.resource.path.fsPath();
}
