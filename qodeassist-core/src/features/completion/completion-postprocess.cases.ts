import { PostprocessOptions } from './completion-postprocess';

/** A file with the cursor at `█`, what the model answered, and exactly what must be inserted. */
export interface PostprocessCase {
    name: string;
    language: string;
    file: string;
    output: string;
    expected: string;
    options?: Partial<PostprocessOptions>;
}

export const CURSOR = '█';

export const POSTPROCESS_CASES: readonly PostprocessCase[] = [
    // Clean FIM answers pass through.
    { name: 'ts: plain FIM body', language: 'typescript', file: 'function add(a: number, b: number) {\n    █\n}\n', output: 'return a + b;', expected: 'return a + b;' },
    { name: 'python: plain FIM body', language: 'python', file: 'def add(a, b):\n    █\n', output: 'return a + b\n', expected: 'return a + b' },
    { name: 'go: plain FIM multi-line', language: 'go', file: 'func sum(xs []int) int {\n\t█\n}\n', output: 'total := 0\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total', expected: 'total := 0\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total' },
    { name: 'rust: end of line expression', language: 'rust', file: 'fn main() {\n    let v = vec![1, 2, 3];\n    let s: i32 = █\n}\n', output: 'v.iter().sum();', expected: 'v.iter().sum();' },
    { name: 'java: empty answer stays empty', language: 'java', file: 'class A {\n    █\n}\n', output: '', expected: '' },
    { name: 'cpp: whitespace-only answer is empty', language: 'cpp', file: 'int main() {\n    █\n}\n', output: '  \n\n', expected: '' },

    // Thinking blocks.
    { name: 'ts: think block removed', language: 'typescript', file: 'const x = █', output: '<think>they want a number</think>42;', expected: '42;' },
    { name: 'python: think block with newlines removed', language: 'python', file: 'x = █', output: '<think>\nhmm\n</think>\n\n[1, 2]', expected: '[1, 2]' },
    { name: 'go: unfinished think block yields nothing', language: 'go', file: 'x := █', output: '<think>still reasoning about', expected: '' },
    { name: 'js: two think blocks removed', language: 'javascript', file: 'let a = █', output: '<think>a</think><think>b</think>1;', expected: '1;' },

    // Fences and prose.
    { name: 'ts: fenced answer unwrapped', language: 'typescript', file: 'function f() {\n    █\n}\n', output: '```typescript\nreturn 1;\n```', expected: 'return 1;' },
    { name: 'python: fenced with prose dropped', language: 'python', file: 'def f():\n    █\n', output: 'Here is the code:\n```python\nreturn 1\n```\nThis returns one.', expected: 'return 1' },
    { name: 'python: prose kept as # comments', language: 'python', file: 'def f():\n    █\n', output: 'Returns one.\n```python\nreturn 1\n```', expected: '# Returns one.\nreturn 1', options: { prose: 'comment' } },
    { name: 'cpp: prose kept as // comments', language: 'cpp', file: 'int f() {\n    █\n}\n', output: 'Simple:\n```cpp\nreturn 1;\n```\nDone.', expected: '// Simple:\nreturn 1;\n// Done.', options: { prose: 'comment' } },
    { name: 'sql: prose kept as -- comments', language: 'sql', file: 'SELECT █', output: 'All columns:\n```sql\n* FROM users;\n```', expected: '-- All columns:\n* FROM users;', options: { prose: 'comment' } },
    { name: 'rust: unterminated fence keeps the code', language: 'rust', file: 'fn f() -> i32 {\n    █\n}\n', output: '```rust\n42\n', expected: '42' },
    { name: 'go: fence without language tag', language: 'go', file: 'func f() int {\n\t█\n}\n', output: '```\nreturn 7\n```', expected: 'return 7' },
    { name: 'bash: indented fence', language: 'shellscript', file: 'for f in *; do\n    █\ndone\n', output: '  ```bash\necho "$f"\n  ```', expected: 'echo "$f"' },
    { name: 'ts: backticks inside a template literal are not a fence', language: 'typescript', file: 'const s = █', output: '`hello ${name}`;', expected: '`hello ${name}`;' },

    // Echo of the current line and indentation.
    { name: 'ts: echoed line start removed', language: 'typescript', file: 'function f() {\n    const total = █\n}\n', output: '    const total = items.length;', expected: 'items.length;' },
    { name: 'python: echoed statement start removed', language: 'python', file: 'def f(xs):\n    return █\n', output: '    return sum(xs)', expected: 'sum(xs)' },
    { name: 'java: echoed indentation removed', language: 'java', file: 'class A {\n    void f() {\n        █\n    }\n}\n', output: '        System.out.println("hi");', expected: 'System.out.println("hi");' },
    { name: 'go: deeper indentation keeps its extra level', language: 'go', file: 'func f() {\n\t█\n}\n', output: '\t\tx := 1', expected: '\tx := 1' },
    { name: 'js: leading space after a space removed', language: 'javascript', file: 'const x = █', output: ' 5;', expected: '5;' },
    { name: 'c: leading space kept after a non-space', language: 'c', file: 'int x =█', output: ' 5;', expected: ' 5;' },
    { name: 'python: StarCoder-style leading spaces after a space removed', language: 'python', file: 'x = █', output: '   compute()', expected: 'compute()' },

    // The line above repeated.
    { name: 'ts: repeated line above dropped', language: 'typescript', file: 'const a = 1;\n█\n', output: 'const a = 1;\nconst b = 2;', expected: 'const b = 2;' },
    { name: 'python: repeated line above as only line gives nothing', language: 'python', file: 'import os\n█\n', output: 'import os', expected: '' },
    { name: 'cpp: different line above kept', language: 'cpp', file: '#include <vector>\n█\n', output: '#include <string>', expected: '#include <string>' },
    { name: 'go: a closing brace under a closing brace is kept', language: 'go', file: 'if a {\n\tif b {\n\t\tx()\n\t}\n█\n', output: '}', expected: '}' },
    { name: 'ruby: an end under an end is kept', language: 'ruby', file: 'def f\n  if x\n    y\n  end\n█\n', output: 'end', expected: 'end' },
    { name: 'java: repeated indented line above dropped', language: 'java', file: 'class A {\n    int a;\n    █\n}\n', output: '    int a;\n    int b;', expected: 'int b;' },

    // Single line vs multi-line.
    { name: 'ts: mid-line cursor keeps one line', language: 'typescript', file: 'const total = █ + tax;\n', output: 'price * count\nconst other = 1;', expected: 'price * count' },
    { name: 'python: mid-line call keeps one line', language: 'python', file: 'print(█, end="")\n', output: 'value\nprint(2)', expected: 'value' },
    { name: 'go: cursor before only a closer may go multi-line', language: 'go', file: 'fmt.Println(█)\n', output: '"a",\n\t"b"', expected: '"a",\n\t"b"' },
    { name: 'rust: end of line may go multi-line', language: 'rust', file: 'fn main() {\n    █\n}\n', output: 'let a = 1;\n    let b = 2;', expected: 'let a = 1;\n    let b = 2;' },
    { name: 'js: single-line option', language: 'javascript', file: 'function f() {\n    █\n}\n', output: 'const a = 1;\n    return a;', expected: 'const a = 1;', options: { lines: 'single' } },
    { name: 'ts: multi option keeps lines mid-line', language: 'typescript', file: 'call(█ x);\n', output: 'a,\n  b,', expected: 'a,\n  b,', options: { lines: 'multi' } },
    { name: 'python: leading newline before a single line dropped', language: 'python', file: 'x = f(█, 2)\n', output: '\n1', expected: '1' },

    // Overlap with the code after the cursor.
    { name: 'ts: stops before reproducing the next line', language: 'typescript', file: 'function f() {\n    █\n    return result;\n}\n', output: 'const result = compute();\n    return result;\n}', expected: 'const result = compute();' },
    { name: 'python: stops before reproducing the next def', language: 'python', file: 'def a():\n    █\n\ndef b():\n    pass\n', output: 'return 1\n\ndef b():\n    pass', expected: 'return 1' },
    { name: 'cpp: suffix overlap at the end cut', language: 'cpp', file: 'int main() {\n    std::cout << █ << std::endl;\n}\n', output: '"hi" << std::endl;', expected: '"hi"' },
    { name: 'java: overlapping closing of the block cut', language: 'java', file: 'void f() {\n    █\n}\n', output: 'run();\n}', expected: 'run();' },
    { name: 'go: a lone closing brace that follows is not repeated', language: 'go', file: 'if ok {\n\t█\n}\n', output: 'a()\n}\nb()', expected: 'a()' },
    { name: 'ts: an inner closing brace is not the function\'s own', language: 'typescript', file: 'function f() {\n    █\n}\n', output: 'if (x) {\n        y();\n    }', expected: 'if (x) {\n        y();\n    }' },
    { name: 'rust: no overlap leaves the text', language: 'rust', file: 'let x = █;\nlet y = 2;\n', output: 'compute()', expected: 'compute()' },
    { name: 'js: overlap of a string tail', language: 'javascript', file: 'log("hello █ world");\n', output: 'big world");', expected: 'big' },

    // Closing tails right of the cursor.
    { name: 'ts: closing paren not typed twice', language: 'typescript', file: 'foo(█)\n', output: 'a, b)', expected: 'a, b' },
    { name: 'python: closing bracket not typed twice', language: 'python', file: 'xs = [█]\n', output: '1, 2, 3]', expected: '1, 2, 3' },
    { name: 'go: closing brace and paren merged', language: 'go', file: 'f(func() {█})\n', output: ' return })', expected: ' return' },
    { name: 'c: semicolon merged', language: 'c', file: 'int x = █;\n', output: '42;', expected: '42' },
    { name: 'java: closers kept when the completion lacks them', language: 'java', file: 'call(█);\n', output: 'a, b', expected: 'a, b' },
    { name: 'js: closing quote merged', language: 'javascript', file: 'const s = "█";\n', output: 'hello";', expected: 'hello' },
    { name: 'ts: partial closer merged', language: 'typescript', file: 'f(g(█));\n', output: 'x)', expected: 'x' },
    { name: 'rust: closer inside a multi-line answer only at its end', language: 'rust', file: 'call(█)\n', output: 'a,\n    b)', expected: 'a,\n    b' },
    { name: 'ts: a call the completion closes itself keeps its paren', language: 'typescript', file: 'foo(█)\n', output: 'bar()', expected: 'bar()' },
    { name: 'ts: own call kept, the extra closer dropped', language: 'typescript', file: 'foo(█)\n', output: 'bar())', expected: 'bar()' },
    { name: 'python: a list the completion opens keeps its bracket', language: 'python', file: 'xs = [█]\n', output: 'ys[0]', expected: 'ys[0]' },
    { name: 'js: a string the completion closes itself keeps its quote', language: 'javascript', file: 'log(█);\n', output: '"done");', expected: '"done"' },
    { name: 'go: a block the completion opens keeps its brace', language: 'go', file: 'f(█})\n', output: 'func() {}', expected: 'func() {}' },

    // Trailing whitespace.
    { name: 'python: trailing newlines removed', language: 'python', file: 'def f():\n    █\n', output: 'pass\n\n\n', expected: 'pass' },
    { name: 'ts: trailing spaces removed', language: 'typescript', file: 'let a = █', output: '1;   ', expected: '1;' },

    // Combinations across languages.
    { name: 'ts: fence plus echo plus overlap', language: 'typescript', file: 'function f() {\n    const x = █\n    return x;\n}\n', output: '```ts\n    const x = 41 + 1;\n    return x;\n```', expected: '41 + 1;' },
    { name: 'python: think plus fence plus closer', language: 'python', file: 'print(█)\n', output: '<think>ok</think>```python\n"hi")\n```', expected: '"hi"' },
    { name: 'cpp: fence plus repeated line above', language: 'cpp', file: 'int a = 1;\n█\n', output: '```cpp\nint a = 1;\nint b = 2;\n```', expected: 'int b = 2;' },
    { name: 'go: echoed indentation plus trailing newline', language: 'go', file: 'func f() {\n\t█\n}\n', output: '\treturn nil\n', expected: 'return nil' },
    { name: 'kotlin: plain expression', language: 'kotlin', file: 'val x = █', output: 'listOf(1, 2)', expected: 'listOf(1, 2)' },
    { name: 'swift: echoed line start', language: 'swift', file: 'let total = █', output: 'let total = a + b', expected: 'a + b' },
    { name: 'ruby: prose as # comments', language: 'ruby', file: 'def f\n  █\nend\n', output: 'Returns two.\n```ruby\n2\n```', expected: '# Returns two.\n2', options: { prose: 'comment' } },
    { name: 'lua: prose as -- comments', language: 'lua', file: 'local x = █', output: 'Zero:\n```lua\n0\n```', expected: '-- Zero:\n0', options: { prose: 'comment' } },
    { name: 'json: value completion with closer', language: 'json', file: '{ "name": "█" }\n', output: 'qodeassist" }', expected: 'qodeassist' },
    { name: 'yaml: mapping continues on the next line', language: 'yaml', file: 'services:\n  █\n', output: 'web:\n    image: nginx', expected: 'web:\n    image: nginx' },
    { name: 'html: tag completion', language: 'html', file: '<ul>\n  █\n</ul>\n', output: '<li>One</li>\n  <li>Two</li>\n</ul>', expected: '<li>One</li>\n  <li>Two</li>' },
    { name: 'css: declaration mid-block', language: 'css', file: '.a {\n  █\n}\n', output: 'color: red;\n}', expected: 'color: red;' },
    { name: 'csharp: method body', language: 'csharp', file: 'int F() {\n    █\n}\n', output: 'return 0;\n}', expected: 'return 0;' },
    { name: 'php: echoed line start', language: 'php', file: '<?php\n$x = █', output: '$x = 5;', expected: '5;' }
];
