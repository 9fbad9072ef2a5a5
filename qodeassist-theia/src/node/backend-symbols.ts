/** What the QodeAssist backend services share, bound once in the backend module. */
export const QodeAssistSecretsStore = Symbol('QodeAssistSecretsStore');
export const QodeAssistConfiguration = Symbol('QodeAssistConfiguration');
/** The user's home, where `~/.qodeassist/chats` lives when chats are kept per user (tests point it elsewhere). */
export const QodeAssistUserHome = Symbol('QodeAssistUserHome');

/** Where keys set from the IDE and the MCP server token are stored. */
export const QodeAssistWritableSecrets = Symbol('QodeAssistWritableSecrets');

/** The chats open in this backend, one owner per chat file, shared by every window's chat service. */
export const QodeAssistChatOwners = Symbol('QodeAssistChatOwners');

/** Every key the backend resolved or stored: the loggers and the chat saver scrub these values. */
export const QodeAssistKnownSecrets = Symbol('QodeAssistKnownSecrets');
