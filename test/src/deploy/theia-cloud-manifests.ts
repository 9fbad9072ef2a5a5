import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const DEPLOY_DIR = join(REPO_ROOT, 'deploy', 'theia-cloud');

export interface Manifest {
    file: string;
    apiVersion: string;
    kind: string;
    metadata: { name?: string; namespace?: string };
    [field: string]: unknown;
}

/** Every document of every manifest in deploy/theia-cloud. */
export function deployManifests(): Manifest[] {
    const files = ['appdefinition.yaml', 'qodeassist-config.yaml', 'session-volumes.yaml', 'try-sessions.yaml'];
    return files.flatMap(file => parseAllDocuments(readFileSync(join(DEPLOY_DIR, file), 'utf8')).map(document => {
        if (document.errors.length) {
            throw new Error(`${file}: ${document.errors.map(error => error.message).join('; ')}`);
        }
        return { file, ...document.toJS() } as Manifest;
    }));
}

export function manifest(kind: string, name?: string): Manifest {
    const found = deployManifests().find(candidate => candidate.kind === kind && (name === undefined || candidate.metadata.name === name));
    if (!found) {
        throw new Error(`deploy/theia-cloud has no ${kind}${name ? ` named ${name}` : ''}`);
    }
    return found;
}

/** What the session policies' apply configurations set, read from their CEL text (our own, regular file). */
export interface SessionPolicyFacts {
    /** The container every mutation changes (Object.spec.containers{name: ...}). */
    containerNames: string[];
    /** Each policy's matchConditions (CEL). */
    conditions: string[][];
    env: Record<string, string>;
    /** configMap items of the managed volume: key → path. */
    managedItems: Array<{ key: string; path: string }>;
    /** mountPath → volume name (or the workspace volume's expression), per policy. */
    mounts: Array<Record<string, { name: string; subPath?: string }>>;
    secretName?: string;
    configMapName?: string;
    expressions: string[];
}

/** The session policies of session-volumes.yaml, in order: every pod, persistent sessions, every other session. */
export function sessionPolicyFacts(policies = deployManifests().filter(document => document.kind === 'NamespacedMutatingPolicy')): SessionPolicyFacts {
    const specs = policies.map(policy => policy.spec as { mutations: Array<{ applyConfiguration: { expression: string } }>; matchConditions: Array<{ expression: string }> });
    const expressions = specs.map(spec => spec.mutations.map(mutation => mutation.applyConfiguration.expression).join('\n'));
    const all = expressions.join('\n');
    const containerNames = [...all.matchAll(/Object\.spec\.containers\{\s*name:\s*"([^"]+)"/g)].map(match => match[1]);
    const env = Object.fromEntries([...all.matchAll(/Object\.spec\.containers\.env\{name:\s*"([^"]+)",\s*value:\s*"([^"]*)"\}/g)].map(match => [match[1], match[2]]));
    const managedItems = [...all.matchAll(/Object\.spec\.volumes\.configMap\.items\{key:\s*"([^"]+)",\s*path:\s*"([^"]+)"\}/g)].map(match => ({ key: match[1], path: match[2] }));
    const mounts = expressions.map(expression => Object.fromEntries([...expression.matchAll(/Object\.spec\.containers\.volumeMounts\{name:\s*("([^"]+)"|[\w.[\]]+),\s*mountPath:\s*"([^"]+)"(?:,\s*subPath:\s*"([^"]+)")?/g)]
        .map(match => [match[3], { name: match[2] ?? match[1], ...(match[4] ? { subPath: match[4] } : {}) }])));
    return {
        containerNames, env, managedItems, mounts, expressions,
        conditions: specs.map(spec => spec.matchConditions.map(condition => condition.expression)),
        secretName: /secretName:\s*"([^"]+)"/.exec(all)?.[1],
        configMapName: /configMap: Object\.spec\.volumes\.configMap\{\s*name:\s*"([^"]+)"/.exec(all)?.[1]
    };
}

/**
 * A configMap volume as the kubelet writes it (its AtomicWriter): the files in a timestamped folder,
 * `..data` linking to it, and each top-level name a link into `..data` — so a loader that skipped
 * links would find nothing here, as it would find nothing in a pod.
 */
export function writeConfigMapVolume(dir: string, data: Record<string, string>, items: ReadonlyArray<{ key: string; path: string }>): void {
    const stamped = '..2026_11_26_12_00_00.000000001';
    const tops = new Set<string>();
    for (const { key, path } of items) {
        if (!(key in data)) {
            throw new Error(`the volume's items name the key ${key}, which the ConfigMap lacks: the kubelet would not start the pod`);
        }
        mkdirSync(dirname(join(dir, stamped, path)), { recursive: true });
        writeFileSync(join(dir, stamped, path), data[key]);
        tops.add(path.split('/')[0]);
    }
    symlinkSync(stamped, join(dir, '..data'));
    for (const top of tops) {
        symlinkSync(join('..data', top), join(dir, top));
    }
}
