/**
 * The chat's code highlighter, in a worker of its own: highlight.js allocates tens of kilobytes
 * per small block (a match array per lexeme) and takes milliseconds per hundred lines, all of
 * which would otherwise land on the page's main thread and its heap while an answer streams.
 * Bundled on its own by scripts/bundle-highlight-worker.mjs.
 */
import { highlightMarkup, WARM_LANGUAGES, warmUpLanguage } from './highlight-markup';
import type { HighlightRequest, HighlightResponse } from './code-highlighter';

interface WorkerScope {
    onmessage: ((event: MessageEvent<HighlightRequest>) => void) | null;
    postMessage(message: HighlightResponse): void;
    setTimeout(work: () => void, ms: number): unknown;
}
const scope = self as unknown as WorkerScope;

scope.onmessage = ({ data }) => {
    scope.postMessage({ id: data.id, markup: highlightMarkup(data.code, data.language) });
};

// The grammars compile here, between requests, a language per turn.
const queue = [...WARM_LANGUAGES];
const warmNext = () => {
    const language = queue.shift();
    if (language) {
        warmUpLanguage(language);
        scope.setTimeout(warmNext, 0);
    }
};
scope.setTimeout(warmNext, 0);
