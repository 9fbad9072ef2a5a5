import { sep } from 'node:path';
import { LoadedProvider, MergedAgent } from '../config/configuration-source';
import { originOf } from '../config/key-origins';
import { MANAGED_LABEL } from '../config/managed-policy';
import { ModelPricing, PricingTable, pricingFor } from '../config/pricing';

/** An agent's price, and — when the administrator's price overrode one of the user's or the project's — what was set aside. */
export interface AgentPricing {
    pricing?: ModelPricing;
    /** Why the agent's own `[pricing]` entry for its model is not used. */
    setAside?: string;
}

/**
 * The price of an agent's model. For a provider the administrator defines — or any provider at
 * the same URL origin as one, since a user provider pointing at the managed gateway reaches the
 * same budget — only the administrator's prices count: a managed agent's `[pricing]` entry, else
 * the managed provider's. A user or project agent's own entry (0, another currency) is set aside,
 * or it would undo the daily spend limit. Everywhere else the agent's entry wins over its provider's.
 */
export function agentPricing(
    agent: MergedAgent, model: string, own: PricingTable | undefined, provider: LoadedProvider,
    providers: ReadonlyMap<string, LoadedProvider>, managedRoot: string | undefined
): AgentPricing {
    const origin = originOf(provider.url);
    const managedProviders = [...providers.values()].filter(candidate => candidate.layer === 'managed' && (candidate === provider || (origin !== undefined && originOf(candidate.url) === origin)));
    if (managedProviders.length === 0) {
        return withPricing(pricingFor(model, own, provider.instance.pricing));
    }
    const fromManaged = (file: { path: string }) => managedRoot !== undefined && file.path.startsWith(managedRoot.endsWith(sep) ? managedRoot : managedRoot + sep);
    const entry = own && Object.prototype.hasOwnProperty.call(own, model) ? own[model] : undefined;
    const entryPaths = [...agent.origin.entries()].filter(([path]) => path === `pricing.${model}` || path.startsWith(`pricing.${model}.`));
    const managedEntry = entry && entryPaths.length > 0 && entryPaths.every(([, file]) => fromManaged(file)) ? entry : undefined;
    // The provider itself first when managed, then the managed providers at its origin.
    const ordered = [...managedProviders].sort((a, b) => Number(b === provider) - Number(a === provider));
    const pricing = managedEntry ?? ordered.map(candidate => pricingFor(model, undefined, candidate.instance.pricing)).find(found => found !== undefined);
    const setAside = entry && !managedEntry
        ? `its [pricing."${model}"] is not used: provider "${provider.instance.name}" is at ${origin ?? provider.url}, where the prices are ${MANAGED_LABEL}${pricing ? '' : ' (none is set for this model)'}`
        : undefined;
    return { ...withPricing(pricing), ...(setAside ? { setAside } : {}) };
}

function withPricing(pricing: ModelPricing | undefined): AgentPricing {
    return pricing ? { pricing } : {};
}
