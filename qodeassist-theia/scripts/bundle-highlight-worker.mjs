// Bundles lib/browser/chat/highlight-worker.js (compiled by tsc) with highlight.js into one script and
// writes it as a string module, lib/browser/chat/highlight-worker-source.js: the chat starts the worker
// from that text, so any Theia product's bundler (esbuild or webpack) ships it with no configuration.
import { build } from 'esbuild';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const chat = join(dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'browser', 'chat');
const result = await build({
    entryPoints: [join(chat, 'highlight-worker.js')], bundle: true, minify: true, format: 'iife', platform: 'browser', target: 'es2022',
    write: false, logLevel: 'warning'
});
const source = result.outputFiles[0].text;
const target = join(chat, 'highlight-worker-source.js');
const module = `"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\nexports.HIGHLIGHT_WORKER_SOURCE = ${JSON.stringify(source)};\n`;
// Written only when it changed: the apps are bundled again when anything in lib is newer than their last bundle.
if (!existsSync(target) || readFileSync(target, 'utf8') !== module) {
    writeFileSync(target, module);
    console.log(`highlight worker: ${(source.length / 1024).toFixed(0)} KB`);
}
