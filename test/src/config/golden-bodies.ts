import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Configuration, defaultConfigRoots, loadConfiguration, syntheticContext } from '@qodeassist/core';

export const GOLDEN_DIR = join(__dirname, '..', '..', '..', 'agents', 'golden');

/** The bundled configuration alone: no user or project layer can leak into the snapshots. */
export function bundledConfiguration(): Configuration {
    const roots = defaultConfigRoots();
    return loadConfiguration({ bundledAgents: roots.bundledAgents, bundledProviders: roots.bundledProviders });
}

/** What a golden snapshot records for one agent: where the request goes and exactly what it sends. */
export function goldenFor(configuration: Configuration, name: string): string {
    const agent = configuration.agents.get(name)!;
    const synthetic = syntheticContext();
    const ctx = { ...synthetic, system_prompt: agent.renderSystemPrompt() || synthetic.system_prompt };
    const snapshot = { agent: name, protocol: agent.protocol, url: agent.url, body: agent.renderBody(ctx) };
    return `${JSON.stringify(snapshot, undefined, 2)}\n`;
}

/** Rewrites every snapshot (`npm run golden:update`); the diff is reviewed in the commit. */
export function updateGoldens(): string[] {
    const configuration = bundledConfiguration();
    if (configuration.issues.some(issue => issue.severity === 'error')) {
        throw new Error('The bundled configuration has errors; fix them before updating the snapshots.');
    }
    mkdirSync(GOLDEN_DIR, { recursive: true });
    for (const file of existsSync(GOLDEN_DIR) ? readdirSync(GOLDEN_DIR) : []) {
        rmSync(join(GOLDEN_DIR, file));
    }
    const written: string[] = [];
    for (const name of [...configuration.agents.keys()].sort()) {
        writeFileSync(join(GOLDEN_DIR, `${name}.json`), goldenFor(configuration, name));
        written.push(name);
    }
    return written;
}

export function readGolden(name: string): string | undefined {
    const path = join(GOLDEN_DIR, `${name}.json`);
    return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

if (require.main === module) {
    const written = updateGoldens();
    console.log(`Wrote ${written.length} golden request bodies to agents/golden/.`);
}
