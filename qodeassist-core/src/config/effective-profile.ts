import { stringify } from 'smol-toml';
import { MergedAgent } from './configuration-source';

function shortName(label: string): string {
    return label.split(/[\\/]/).slice(-2).join('/');
}

/**
 * An agent profile as it is after `extends`, as TOML the user can read: a header naming the
 * chain, each field with the file it came from, and the model override when one applies.
 */
export function effectiveProfileText(profile: MergedAgent, modelOverride?: string): string {
    const lines = [`# "${profile.name}" after extends: ${profile.chain.map(file => shortName(file.label)).join(' → ')}`];
    const entries = Object.entries(profile.table);
    const isTable = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
    // TOML wants the plain keys before the first [table].
    for (const [key, value] of entries.filter(([, value]) => !isTable(value))) {
        const from = profile.origin.get(key);
        lines.push(`${stringify({ [key]: value }).trimEnd()}${from ? `  # ${shortName(from.label)}` : ''}`);
    }
    if (modelOverride !== undefined) {
        lines.push(`# model is overridden to "${modelOverride}" by ~/.qodeassist/agent_models.json`);
    }
    for (const [key, value] of entries.filter(([, value]) => isTable(value))) {
        const sources = [...new Set([...profile.origin.entries()].filter(([path]) => path === key || path.startsWith(`${key}.`)).map(([, file]) => shortName(file.label)))];
        lines.push('', `# [${key}] from ${sources.join(', ')}`, stringify({ [key]: value }).trimEnd());
    }
    return `${lines.join('\n')}\n`;
}
