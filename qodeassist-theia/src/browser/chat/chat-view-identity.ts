import { NEW_CHAT_TITLE, titleFromText } from '@qodeassist/core/protocol';

/** The factory id of chat views, and the id of the main one (the one the toggle command opens). */
export const CHAT_VIEW_ID = 'qodeassist-chat';

/**
 * The options a chat view is created with. Theia's layout restorer keeps them and creates the
 * view again from them after a reload, so they fix the view's id for its whole life.
 */
export interface ChatViewOptions {
    /** Absent for the main view; a key of its own for every other view (a number in layouts stored before keys were random). */
    instance?: string | number;
}

/** Bits of a view key: two windows, or a hundred reloads, never draw the same key. */
const KEY_BYTES = 8;

/** Fills the array with random bytes. */
export type RandomBytes = (bytes: Uint8Array) => Uint8Array;

/** Not `crypto.randomUUID`: a page served over plain http (no secure context) lacks it. */
const cryptoRandom: RandomBytes = bytes => crypto.getRandomValues(bytes);

/**
 * A key for a new chat view whose id no view of this window has. A counter would restart at 1
 * after a reload while restored views keep their ids (New chat then showed an old chat), and two
 * windows on one backend would count alike; a random key is never drawn again.
 */
export function newChatViewKey(taken: (id: string) => boolean, random: RandomBytes = cryptoRandom): string {
    for (let attempt = 0; attempt < 8; attempt++) {
        const key = Array.from(random(new Uint8Array(KEY_BYTES)), byte => byte.toString(16).padStart(2, '0')).join('');
        if (!taken(chatViewId({ instance: key }))) {
            return key;
        }
    }
    throw new Error('No free chat view key after 8 random draws: the random source repeats itself.');
}

/** The view's id: the main view's, or the main view's with the view's key. */
export function chatViewId(options?: ChatViewOptions): string {
    const instance = options?.instance;
    return instance === undefined || instance === 0 || instance === '' ? CHAT_VIEW_ID : `${CHAT_VIEW_ID}:${instance}`;
}

/** What a view without a titled chat is called, and the title a first message gives it: as core names saved chats. */
export { NEW_CHAT_TITLE, titleFromText as titleFromFirstMessage };

/** A tab shows this much of a title; the tooltip shows all of it. */
const TAB_LABEL_LENGTH = 32;

/** Cut at a word's end where one is near, so a tab does not end in half a word. */
function shorten(text: string, length: number): string {
    if (text.length <= length) {
        return text;
    }
    const cut = text.slice(0, length - 1);
    const space = cut.lastIndexOf(' ');
    return `${(space >= length / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The tab's label (short) and tooltip (whole) for a chat's title; "New chat" while it has none. */
export function chatViewTitle(title: string | undefined): { label: string; caption: string } {
    const whole = title?.trim().replace(/\s+/g, ' ') || NEW_CHAT_TITLE;
    return { label: shorten(whole, TAB_LABEL_LENGTH), caption: whole };
}
