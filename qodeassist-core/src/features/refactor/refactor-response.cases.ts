import { RefactorCleanOptions } from './refactor-response';

/**
 * A selection (between `«` and `»` in `file`), what the model answered, and exactly the code
 * that must replace the selection.
 */
export interface CleanCase {
    name: string;
    file: string;
    output: string;
    expected: string;
    indent?: RefactorCleanOptions['indent'];
    partial?: boolean;
}

export const SELECTION_OPEN = '«';
export const SELECTION_CLOSE = '»';

const ts = 'function total(items) {\n«    let sum = 0;\n    for (const item of items) sum += item;\n»    return sum;\n}\n';

export const CLEAN_CASES: readonly CleanCase[] = [
    // The first fenced block is the answer.
    { name: 'fenced answer taken as is', file: ts, output: '```ts\n    const sum = items.reduce((a, b) => a + b, 0);\n```', expected: '    const sum = items.reduce((a, b) => a + b, 0);\n' },
    { name: 'prose around the fence dropped', file: ts, output: 'Here is the refactored code:\n\n```typescript\n    const sum = items.reduce((a, b) => a + b, 0);\n```\n\nThis uses reduce.', expected: '    const sum = items.reduce((a, b) => a + b, 0);\n' },
    { name: 'only the first of two fenced blocks', file: ts, output: '```ts\n    let sum = items.length;\n```\nor:\n```ts\n    let sum = 1;\n```', expected: '    let sum = items.length;\n' },
    { name: 'a four-backtick fence holding a three-backtick string', file: 'const doc = «x»;\n', output: '````js\n`\\`\\`\\`md`\n````', expected: '`\\`\\`\\`md`' },
    { name: 'a tilde fence', file: 'x = «1»\n', output: '~~~python\n2\n~~~', expected: '2' },
    { name: 'an empty fenced block deletes the selection', file: ts, output: '```ts\n```', expected: '' },
    { name: 'fence indented inside a list item', file: ts, output: '1. Replace with:\n   ```ts\n   let sum = 0;\n   ```', expected: '    let sum = 0;\n' },

    // Unfenced answers: stray explanation lines removed.
    { name: 'unfenced code kept', file: ts, output: '    let sum = 0;\n    for (const item of items) { sum += item; }', expected: '    let sum = 0;\n    for (const item of items) { sum += item; }\n' },
    { name: 'unfenced: leading "Here is" line dropped', file: ts, output: "Here's the updated code:\n    let sum = 0;", expected: '    let sum = 0;\n' },
    { name: 'unfenced: leading "Sure!" and trailing note dropped', file: ts, output: 'Sure! \n    let sum = 0;\n\nNote: behaviour is unchanged.', expected: '    let sum = 0;\n' },
    { name: 'unfenced: "I renamed" explanation after the code dropped', file: ts, output: '    let total = 0;\nI renamed sum to total.', expected: '    let total = 0;\n' },
    { name: 'unfenced: a refusal is no code', file: ts, output: 'I cannot help with that.', expected: '' },
    { name: 'unfenced: a sentence before the code dropped', file: ts, output: 'Use a reduce call instead:\nlet sum = items.reduce((a, b) => a + b, 0);', expected: '    let sum = items.reduce((a, b) => a + b, 0);\n' },
    { name: 'unfenced: a line comment that reads like a sentence is code', file: ts, output: '// Sum the items.\nlet sum = 0;', expected: '    // Sum the items.\n    let sum = 0;\n' },
    { name: 'unfenced: a code line starting with "the" identifier kept', file: 'let «x» = 1;\n', output: 'theValue', expected: 'theValue' },

    // Thinking and markers.
    { name: 'think block before the fence dropped', file: ts, output: '<think>reduce reads better</think>\n```ts\n    let sum = 0;\n```', expected: '    let sum = 0;\n' },
    { name: 'echoed markers removed', file: ts, output: '```ts\n<selection_start>    let sum = 0;<cursor>\n<selection_end>\n```', expected: '    let sum = 0;\n' },

    // Indentation normalized.
    { name: 'dedented answer shifted to the base indentation', file: ts, output: '```ts\nlet sum = 0;\nfor (const item of items) {\n    sum += item;\n}\n```', expected: '    let sum = 0;\n    for (const item of items) {\n        sum += item;\n    }\n' },
    { name: 'over-indented answer shifted back', file: ts, output: '```ts\n            let sum = 0;\n            sum += 1;\n```', expected: '    let sum = 0;\n    sum += 1;\n' },
    { name: 'tabs from the model become the file\'s spaces', file: ts, output: '```ts\n\tlet sum = 0;\n\tif (x) {\n\t\tsum = 1;\n\t}\n```', expected: '    let sum = 0;\n    if (x) {\n        sum = 1;\n    }\n' },
    { name: 'spaces become tabs in a tab-indented file', file: 'func f() {\n«\tx := 1\n»}\n', output: '```go\n    x := 2\n    if x > 1 {\n        x = 3\n    }\n```', expected: '\tx := 2\n\tif x > 1 {\n\t\tx = 3\n\t}\n', indent: { insertSpaces: false, tabSize: 4 } },
    { name: 'two-space file keeps two spaces per level', file: 'def f():\n«  return 1\n»', output: '```python\nif ok:\n    return 1\nreturn 2\n```', expected: '  if ok:\n      return 1\n  return 2\n', indent: { insertSpaces: true, tabSize: 2 } },
    { name: 'selection from an inner line out to its block: least indent is the base', file: 'class A {\n    f() {\n«        go();\n    }\n»}\n', output: '```ts\n    go();\n}\n```', expected: '        go();\n    }\n' },
    { name: 'blank lines inside the answer stay empty', file: ts, output: '```ts\nlet a = 1;\n   \nlet b = 2;\n```', expected: '    let a = 1;\n\n    let b = 2;\n' },
    { name: 'a mid-line selection: first line unindented', file: 'const x = «compute(a, b)»;\n', output: '```ts\n  compute(\n    a,\n    b)\n```', expected: 'compute(\n    a,\n    b)' },
    { name: 'no trailing newline when the selection has none', file: 'let «value» = 1;\n', output: '```ts\ncount\n```\n', expected: 'count' },
    { name: 'a trailing newline when the selection ends with one', file: '«x = 1\n»y = 2\n', output: 'x = 2', expected: 'x = 2\n' },

    // While streaming.
    { name: 'partial: an open fence yields what came so far', file: ts, output: '```ts\n    let sum = 0;\n    for (', expected: '    let sum = 0;\n    for (\n', partial: true },
    { name: 'partial: a closing fence being written is not code', file: ts, output: '```ts\n    let sum = 0;\n``', expected: '    let sum = 0;\n', partial: true },
    { name: 'partial: an opening fence being written is not code', file: ts, output: '``', expected: '', partial: true },
    { name: 'partial: an unfinished think block shows nothing', file: ts, output: '<think>first I will', expected: '', partial: true }
];
