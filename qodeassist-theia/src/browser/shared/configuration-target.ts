/** The command that opens QodeAssist's configuration view; it takes an optional ConfigurationTarget. */
export const OPEN_CONFIGURATION_COMMAND = 'qodeassist.configuration.open';

/** A place in the configuration view to bring into sight and focus. */
export interface ConfigurationTarget {
    section: 'issues' | 'providers' | 'agents';
    /** A provider's row (providers section). */
    provider?: string;
    /** The control in the provider's row: its key (Set key) or its connection test. */
    field?: 'key' | 'test';
}

/** Accepts what a command caller passes: a target, or nothing (the view as it is). */
export function configurationTargetOf(value: unknown): ConfigurationTarget | undefined {
    if (typeof value !== 'object' || value === null) {
        return undefined;
    }
    const { section, provider, field } = value as Record<string, unknown>;
    if (section !== 'issues' && section !== 'providers' && section !== 'agents') {
        return undefined;
    }
    return {
        section,
        ...(typeof provider === 'string' && provider ? { provider } : {}),
        ...(field === 'key' || field === 'test' ? { field } : {})
    };
}

/**
 * The control the view focuses for a target, given the providers it lists: a provider's key or
 * test button (test when no field is asked for), else the section's heading — a provider the
 * view does not list (a typo, a file not loaded) leads to the providers section.
 */
export function focusPlaceOf(target: ConfigurationTarget, providers: readonly string[]): ConfigurationTarget {
    if (target.section !== 'providers' || target.provider === undefined || !providers.includes(target.provider)) {
        return { section: target.section };
    }
    return { section: 'providers', provider: target.provider, field: target.field ?? 'test' };
}

/** Whether a control is the one a focus place names. */
export function isFocusPlace(place: ConfigurationTarget | undefined, control: ConfigurationTarget): boolean {
    return place !== undefined && place.section === control.section && place.provider === control.provider && place.field === control.field;
}
