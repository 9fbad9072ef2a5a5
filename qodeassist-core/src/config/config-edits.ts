import { stringify } from 'smol-toml';
import { QodeAssistError } from '../wire/error-info';
import { CURRENT_SCHEMA_VERSION, Pipeline, PIPELINES, ProviderInstanceSchema } from './schemas';

/** What the configuration view asks for when adding a provider. */
export interface NewProvider {
    name: string;
    client_api: string;
    url?: string;
    api_key_ref?: string;
}

/** A provider file's TOML, checked against the same schema the loader uses; a bad field is a Validation error naming it. */
export function providerFileText(provider: NewProvider): string {
    const instance = {
        schema_version: CURRENT_SCHEMA_VERSION, name: provider.name.trim(), client_api: provider.client_api,
        ...(provider.url?.trim() ? { url: provider.url.trim() } : {}),
        ...(provider.api_key_ref?.trim() ? { api_key_ref: provider.api_key_ref.trim() } : {})
    };
    const parsed = ProviderInstanceSchema.safeParse(instance);
    if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new QodeAssistError({ category: 'Validation', message: `The provider cannot be saved: ${issue.path.join('.') || 'it'} — ${issue.message}.` });
    }
    return `${stringify(parsed.data)}\n`;
}

/**
 * A rosters.toml text with one pipeline's agents replaced, everything else (comments, other
 * pipelines) kept as written; the section is added when the file has none.
 */
export function withRoster(text: string, pipeline: Pipeline, agents: readonly string[]): string {
    if (!PIPELINES.includes(pipeline)) {
        throw new QodeAssistError({ category: 'Validation', message: `There is no roster "${pipeline}"; rosters are ${PIPELINES.join(', ')}.` });
    }
    const line = `agents = ${JSON.stringify([...agents]).replace(/","/g, '", "')}`;
    const source = text.trim() ? text : `schema_version = ${CURRENT_SCHEMA_VERSION}\n`;
    const lines = source.split('\n');
    const header = lines.findIndex(candidate => new RegExp(`^\\s*\\[\\s*${pipeline}\\s*\\]\\s*(#.*)?$`).test(candidate));
    if (header === -1) {
        return `${source.replace(/\n*$/, '\n')}\n[${pipeline}]\n${line}\n`;
    }
    let end = lines.findIndex((candidate, index) => index > header && /^\s*\[/.test(candidate));
    end = end === -1 ? lines.length : end;
    const at = lines.findIndex((candidate, index) => index > header && index < end && /^\s*agents\s*=/.test(candidate));
    if (at === -1) {
        lines.splice(header + 1, 0, line);
        return lines.join('\n');
    }
    // The array may span lines: it ends at the line where the brackets balance.
    let last = at;
    let depth = 0;
    for (let index = at; index < end; index++) {
        depth += (lines[index].match(/\[/g) ?? []).length - (lines[index].match(/\]/g) ?? []).length;
        last = index;
        if (depth <= 0) {
            break;
        }
    }
    lines.splice(at, last - at + 1, line);
    return lines.join('\n');
}
