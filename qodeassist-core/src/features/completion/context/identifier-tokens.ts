/** Words every file of a language has: they say nothing about which code is similar. */
const KEYWORDS = new Set([
    // TypeScript / JavaScript
    'abstract', 'any', 'as', 'async', 'await', 'boolean', 'break', 'case', 'catch', 'class', 'const', 'constructor', 'continue', 'declare',
    'default', 'delete', 'do', 'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'from', 'function', 'get', 'if', 'implements',
    'import', 'in', 'instanceof', 'interface', 'keyof', 'let', 'new', 'null', 'number', 'of', 'private', 'protected', 'public', 'readonly',
    'return', 'set', 'static', 'string', 'super', 'switch', 'this', 'throw', 'true', 'try', 'type', 'typeof', 'undefined', 'unknown', 'var',
    'void', 'while', 'yield', 'never', 'object', 'override',
    // Python
    'and', 'def', 'del', 'elif', 'except', 'False', 'global', 'is', 'lambda', 'None', 'nonlocal', 'not', 'or', 'pass', 'raise', 'self',
    'True', 'with', 'cls', 'str', 'int', 'bool', 'dict', 'list'
]);

const IDENTIFIER = /[A-Za-z_$][\w$]*/g;

/** The identifiers of a text in order, keywords and one-letter names left out. */
export function identifiersOf(text: string): string[] {
    const found: string[] = [];
    for (const match of text.matchAll(IDENTIFIER)) {
        const word = match[0];
        if (word.length > 1 && !KEYWORDS.has(word)) {
            found.push(word);
        }
    }
    return found;
}

/** The distinct identifiers of a text (what the Jaccard ranker compares). */
export function identifierSet(text: string): Set<string> {
    return new Set(identifiersOf(text));
}

/** |a ∩ b| / |a ∪ b|; 0 for two empty sets. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
    if (a.size === 0 || b.size === 0) {
        return 0;
    }
    const [small, large] = a.size <= b.size ? [a, b] : [b, a];
    let shared = 0;
    for (const word of small) {
        if (large.has(word)) {
            shared++;
        }
    }
    return shared / (a.size + b.size - shared);
}

/** Escapes a name (possibly dotted, as Python's `import a.b`) for a regular expression. */
export function escapeName(name: string): string {
    return name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
