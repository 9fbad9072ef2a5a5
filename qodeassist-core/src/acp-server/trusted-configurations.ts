import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ConfigurationProvider, ConfigurationService } from '../agents/configuration-service';
import { defaultConfigRoots } from '../config/config-layers';
import { trustedProject } from '../config/project-trust';

/** The real path; for a path not written yet, its nearest existing folder's real path with the rest appended. */
function realOrResolved(path: string): string {
    const absolute = resolve(path);
    try {
        return realpathSync(absolute);
    } catch {
        const parent = dirname(absolute);
        return parent === absolute ? absolute : join(realOrResolved(parent), basename(absolute));
    }
}

/**
 * The folders whose own configuration the user lets QodeAssist read, named where the user starts
 * the server (`--trust-workspace DIR`, in the editor's user settings): an ACP client says nothing
 * about trust, and a repository opened in it is not trusted by being opened. A folder inside a
 * trusted one is trusted; links are resolved first, so a link cannot lend trust to another place.
 */
export class TrustedFolders {
    private readonly roots: string[];

    constructor(folders: readonly string[]) {
        this.roots = folders.map(realOrResolved);
    }

    isTrusted(folder: string | undefined): boolean {
        if (folder === undefined) {
            return false;
        }
        return this.roots.some(root => isInside(root, folder));
    }
}

/** Whether a path is the folder or lies below it, links resolved on both sides (a path that does not exist yet, as written). */
export function isInside(folder: string, path: string): boolean {
    const inside = relative(realOrResolved(folder), realOrResolved(path));
    return inside === '' || (!inside.startsWith('..') && !isAbsolute(inside));
}

/**
 * One live configuration per session folder (watched, as in the IDE): bundled, the user's, and the
 * folder's own `.qodeassist` only when it is trusted.
 */
export class TrustedConfigurations implements ConfigurationProvider {
    private readonly services = new Map<string, ConfigurationService>();

    constructor(private readonly trust: TrustedFolders, private readonly userRoot: string, private readonly home: string) { }

    forWorkspace(workspacePath: string | undefined): ConfigurationService {
        const key = workspacePath ?? '';
        let service = this.services.get(key);
        if (!service) {
            const roots = defaultConfigRoots(trustedProject(workspacePath, this.trust.isTrusted(workspacePath)), this.home);
            service = new ConfigurationService({ ...roots, user: this.userRoot }).start();
            this.services.set(key, service);
        }
        return service;
    }

    dispose(): void {
        for (const service of this.services.values()) {
            service.dispose();
        }
        this.services.clear();
    }
}
