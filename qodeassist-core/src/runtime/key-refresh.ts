import { ResolvedAgent } from '../agents/configuration-loader';
import { KEY_FILE_SUFFIX, keyFileStamp } from '../config/key-files';
import { environmentVariableFor } from '../config/secrets-store';
import { SessionAgent } from '../session/session';

/** The key file the environment names for an agent's key, if its key comes from one. */
export function keyFileOf(agent: ResolvedAgent, env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
    const ref = agent.provider.instance.api_key_ref;
    return ref === undefined ? undefined : env[`${environmentVariableFor(ref)}${KEY_FILE_SUFFIX}`]?.trim() || undefined;
}

/**
 * A session agent whose key is checked against its key file before each request: when the file
 * changed since the key was read (a rotated Secret), the agent is prepared again and the request
 * carries the new key and headers. The folder watcher (watchKeyFiles) still empties the pools; this
 * closes the window before it hears the change. `stamp` is taken before the key was read, so a
 * rotation during the read is seen as a change.
 */
export function withFreshKey(target: SessionAgent, keyFile: string | undefined, stamp: string | undefined, prepare: () => Promise<SessionAgent>): SessionAgent {
    if (keyFile === undefined) {
        return target;
    }
    let readAt = stamp;
    const fresh: SessionAgent = {
        ...target,
        ensureReachable: async signal => {
            const now = keyFileStamp(keyFile);
            if (now !== readAt) {
                const again = await prepare();
                readAt = now;
                fresh.headers = again.headers;
                fresh.secrets = again.secrets;
            }
            await target.ensureReachable?.(signal);
        }
    };
    return fresh;
}
