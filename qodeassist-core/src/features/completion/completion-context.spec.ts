import * as assert from 'node:assert/strict';
import { cursorWindow, stripCopyrightHeader } from './completion-context';

describe('completion context', () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join('\n');
    const offsetOf = (text: string, marker: string) => text.indexOf(marker) + marker.length;

    it('takes the configured lines before and after the cursor, whole lines only', () => {
        const at = offsetOf(lines, 'line 100');
        const { prefix, suffix } = cursorWindow(lines, at, { linesBefore: 2, linesAfter: 1, wholeFile: false });
        assert.equal(prefix, 'line 98\nline 99\nline 100');
        assert.equal(suffix, '\nline 101');
    });

    it('stops at the file ends and can take the whole file', () => {
        const near = cursorWindow(lines, offsetOf(lines, 'line 2'), { linesBefore: 50, linesAfter: 0, wholeFile: false });
        assert.equal(near.prefix, 'line 1\nline 2');
        assert.equal(near.suffix, '');
        const whole = cursorWindow(lines, 10, { linesBefore: 0, linesAfter: 0, wholeFile: true });
        assert.equal(whole.prefix + whole.suffix, lines);
    });

    const headers: Array<[string, string, string]> = [
        ['a block comment notice', '/*\n * Copyright (C) 2024 Example Corp.\n * SPDX-License-Identifier: MIT\n */\n\nimport x;\n', 'import x;\n'],
        ['a // notice', '// Copyright 2025 The Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style license.\n\npackage main\n', 'package main\n'],
        ['a # notice', '# Licensed under the Apache License, Version 2.0\n# you may not use this file except in compliance.\nimport os\n', 'import os\n'],
        ['an ordinary first comment is kept', '// Parses the config file.\nexport function parse() {}\n', '// Parses the config file.\nexport function parse() {}\n'],
        ['a notice with nothing after it is kept', '/* Copyright 2024 */', '/* Copyright 2024 */']
    ];
    for (const [what, text, expected] of headers) {
        it(`strips the copyright header: ${what}`, () => assert.equal(stripCopyrightHeader(text), expected));
    }

    it('strips the header only when the window starts at the top of the file', () => {
        const text = `/* Copyright 2024 Example */\n${lines}`;
        assert.equal(cursorWindow(text, text.length, { linesBefore: 1000, linesAfter: 0, wholeFile: false }).prefix, lines);
        assert.match(cursorWindow(text, text.length, { linesBefore: 3, linesAfter: 0, wholeFile: false }).prefix, /^line 197\n/);
    });
});
