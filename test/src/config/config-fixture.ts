import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigIssue, Configuration, ConfigRoots, defaultConfigRoots, loadConfiguration } from '@qodeassist/core';

/** A throw-away user (and project) layer on top of the real bundled configuration. */
export class ConfigFixture {
    readonly root = mkdtempSync(join(tmpdir(), 'qodeassist-config-'));
    readonly user = join(this.root, 'user');
    /** A workspace folder; its `.qodeassist` is the project layer. */
    readonly workspace = join(this.root, 'workspace');
    readonly project = join(this.workspace, '.qodeassist');

    get roots(): ConfigRoots {
        const bundled = defaultConfigRoots();
        return { bundledAgents: bundled.bundledAgents, bundledProviders: bundled.bundledProviders, user: this.user, project: this.project };
    }

    /** Writes `text` to a path below the user layer (e.g. `agents/x.toml`); returns the absolute path. */
    user_(relativePath: string, text: string): string {
        return this.write(join(this.user, relativePath), text);
    }

    project_(relativePath: string, text: string): string {
        return this.write(join(this.project, relativePath), text);
    }

    write(path: string, text: string): string {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, text);
        return path;
    }

    load(): Configuration {
        return loadConfiguration(this.roots);
    }

    /** The issues reported for one file. */
    issuesFor(path: string): ConfigIssue[] {
        return this.load().issues.filter(issue => issue.file === path);
    }

    dispose(): void {
        rmSync(this.root, { recursive: true, force: true });
    }
}
