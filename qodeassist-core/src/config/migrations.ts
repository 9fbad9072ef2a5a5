import { CURRENT_SCHEMA_VERSION } from './schemas';

export type FileKind = 'provider' | 'agent' | 'rosters';

export interface MigrationResult {
    value?: Record<string, unknown>;
    /** Set when the file was migrated forward; shown as a notice. */
    notice?: string;
    /** Set when the file cannot be read by this version. */
    error?: { message: string; fix: string };
}

/** Keys renamed since the unversioned (0) format of the original plugin, per file kind. */
const RENAMED_IN_V1: Record<FileKind, Record<string, string>> = {
    provider: { api: 'client_api', api_key: 'api_key_ref' },
    agent: { provider: 'provider_instance', tools: 'enable_tools', thinking: 'enable_thinking', request: 'body' },
    rosters: {}
};

/**
 * Brings a parsed file to the current schema. Older files are migrated forward with a
 * notice saying exactly what changed; newer or nonsensical versions are rejected with
 * what to do — never silently reinterpreted.
 */
export function migrate(kind: FileKind, raw: Record<string, unknown>): MigrationResult {
    const version = raw.schema_version ?? 0;
    if (typeof version !== 'number' || !Number.isInteger(version) || version < 0) {
        return { error: { message: `schema_version must be a whole number, not ${JSON.stringify(version)}`, fix: `set schema_version = ${CURRENT_SCHEMA_VERSION}` } };
    }
    if (version > CURRENT_SCHEMA_VERSION) {
        return {
            error: {
                message: `written for schema_version ${version}, but this QodeAssist reads up to ${CURRENT_SCHEMA_VERSION}`,
                fix: 'update QodeAssist, or rewrite the file for the current schema'
            }
        };
    }
    if (version === CURRENT_SCHEMA_VERSION) {
        return { value: raw };
    }
    const value: Record<string, unknown> = { ...raw, schema_version: CURRENT_SCHEMA_VERSION };
    const changes: string[] = [];
    for (const [old, renamed] of Object.entries(RENAMED_IN_V1[kind])) {
        if (old in value) {
            if (!(renamed in value)) {
                value[renamed] = value[old];
            }
            delete value[old];
            changes.push(`${old} → ${renamed}`);
        }
    }
    const what = changes.length > 0 ? `renamed ${changes.join(', ')}` : 'no field changed';
    return {
        value,
        notice: `migrated from schema_version ${version} to ${CURRENT_SCHEMA_VERSION} (${what}); set schema_version = ${CURRENT_SCHEMA_VERSION}${changes.length > 0 ? ' and the new names' : ''} in the file to silence this notice`
    };
}
