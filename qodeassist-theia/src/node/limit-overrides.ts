import { LimitOverrides, usableLimits } from '@qodeassist/core';
import { injectable } from '@theia/core/shared/inversify';

/**
 * One window's limit settings (`qodeassist.limits.*`), as its frontend last reported them.
 * Bound per connection; the sessions of that window read `current()` at each send, so a
 * changed setting applies to the next request.
 */
@injectable()
export class ConnectionLimitOverrides {
    private overrides: LimitOverrides = {};

    current(): LimitOverrides {
        return { ...this.overrides };
    }

    /** Replaces the overrides; only positive finite numbers are kept (0 or absent: the agent's value or the default). */
    set(overrides: LimitOverrides): void {
        this.overrides = usableLimits(overrides);
    }
}
