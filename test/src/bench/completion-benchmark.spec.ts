import * as assert from 'node:assert/strict';
import { completionFor } from './completion-benchmark';
import { TARGET_LINES } from './completion-script';

describe('completion benchmark: the fake model', () => {
    const body = '    ';
    const cases: Array<[string, string, string]> = [
        ['our marker, first line', `function f() {\n${body}con<cursor>\n}`, 'st area = shape.width * shape.height;'],
        ['Theia AI\'s marker, first line', `function f() {\n${body}const ar[[MARKER]]\n}`, 'ea = shape.width * shape.height;'],
        ['Theia AI\'s prompt names the marker again after the snippet: the first one is the cursor',
            `## Code snippet\n\`\`\`\n{\n${body}const ar[[MARKER]]\n}\n\`\`\`\nReplace [[MARKER]] with the exact code. Return only the replacement of [[MARKER]] as plain text.`, 'ea = shape.width * shape.height;'],
        ['the lines written pick the line: a second "const"', `{\n${body}${TARGET_LINES[0]}\n${body}const <cursor>\n}`, 'perimeter = 2 * shape.width + 2 * shape.height;'],
        ['what does not start the line being typed gets nothing', `{\n${body}let <cursor>\n}`, ''],
        ['a finished line gets nothing', `{\n${body}${TARGET_LINES[0]}<cursor>\n}`, ''],
        ['no marker, no answer', 'const a = 1;', ''],
        ['another file of the script, open in another tab and written whole, does not count: the cursor\'s own function does',
            `export function describe(shape: Shape): string {\n${TARGET_LINES.map(line => `${body}${line}\n`).join('')}}\n---\nexport function describe(shape: Shape): string {\n${body}${TARGET_LINES[0]}\n${body}const <cursor>\n}`,
            'perimeter = 2 * shape.width + 2 * shape.height;']
    ];
    for (const [what, prompt, expected] of cases) {
        it(what, () => assert.equal(completionFor(prompt), expected));
    }
});
