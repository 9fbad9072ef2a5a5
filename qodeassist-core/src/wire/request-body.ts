/**
 * A request's JSON body as the agent's template rendered it; a tool round's continuation replays it.
 * Its own module so host-models and wire-protocols can both use it without importing each other.
 */
export type RequestBody = Record<string, unknown>;
