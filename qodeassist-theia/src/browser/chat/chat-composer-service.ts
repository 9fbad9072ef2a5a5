import type { ChatComposer } from './chat-composer';

/** The public members only: protected members would make the type nominal, and a product's composer need not extend ChatComposer. */
type PublicPart<T> = { [K in keyof T]: T[K] };

/**
 * The draft of one chat view: text, attachments, agent, role and mode, as the view renders them and
 * the controller takes them. `ChatComposer` is QodeAssist's; a product rebinds this to its own
 * (usually a subclass). Transient: every chat view gets its own.
 */
export const ChatComposerService = Symbol('ChatComposerService');
export type ChatComposerService = PublicPart<ChatComposer>;
