import hljs from 'highlight.js/lib/common';

/** Languages models write most; highlight.js compiles a grammar on its first use. */
export const WARM_LANGUAGES = ['typescript', 'javascript', 'python', 'cpp', 'c', 'java', 'go', 'rust', 'json', 'bash', 'shell', 'xml', 'css', 'yaml', 'sql',
    'csharp', 'kotlin', 'diff', 'markdown'];

/** highlight.js's markup for the code: spans and escaped text; undefined where the language is unknown or the grammar fails. */
export function highlightMarkup(code: string, language: string): string | undefined {
    if (!language || !hljs.getLanguage(language)) {
        return undefined;
    }
    try {
        return hljs.highlight(code, { language, ignoreIllegals: true }).value;
    } catch {
        return undefined;
    }
}

/** Compiles a grammar by highlighting a line with it. */
export function warmUpLanguage(language: string): void {
    highlightMarkup('const a = "b"; // c\n', language);
}
