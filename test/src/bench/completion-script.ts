/**
 * The script the completion benchmark's typist follows (`npm run bench:completion`), in one place: the benchmark types it
 * in Chromium, and the trigger rule's own spec (qodeassist-theia browser/completion/trigger-timeline.spec.ts) replays
 * its key timeline without a browser. No imports: the browser package's specs load it as it is.
 */

/** The lines the typist writes into the function body, in order. No brackets or quotes: editors auto-close those differently. */
export const TARGET_LINES: readonly string[] = [
    'const area = shape.width * shape.height;',
    'const perimeter = 2 * shape.width + 2 * shape.height;',
    'const ratio = shape.width / shape.height;',
    'const square = ratio === 1;',
    'const large = area > 100 || perimeter > 40;',
    'const half = area / 2;',
    'const wide = shape.width > shape.height;',
    'const double = perimeter * 2;',
    'const tall = shape.height > shape.width;',
    'return shape.name + area;'
];
/** Where the typist stops to look for a suggestion: after this many characters of each line (not at its end: it goes on to Enter). */
export const STOPS: readonly number[] = [3, 8, 14, 22, 31, 42];
/** Every other line, the typist also stops on the fresh line it just opened (an eager context), before typing it. */
export const FRESH_LINE_STOP = (line: number): boolean => line % 2 === 1;
/** How long the typist stops (ms). */
export const PAUSE_MS = 1_600;
/** The debounce every app is configured with (ms). */
export const DEBOUNCE_MS = 300;
/** The fake model's time to first byte (ms), the same for both apps. */
export const FIRST_BYTE_MS = 250;
/** Typed at each rhythm before its script, so the adaptive debounce knows the rhythm (it keeps the last 50 gaps) as it would all day. */
export const WARM_UP_LINE = '// The typist warms up at this rhythm before the script starts.';
