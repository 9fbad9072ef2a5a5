import * as assert from 'node:assert/strict';
import { loadConfiguration } from '@qodeassist/core';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { DEPLOY_DIR, deployManifests, manifest, REPO_ROOT, sessionPolicyFacts, writeConfigMapVolume } from './theia-cloud-manifests';

/** Kubernetes' own kinds the manifests hold, checked below by the API's rules for them. */
const CORE_KINDS = new Set(['v1/ConfigMap', 'v1/Secret']);
/** ConfigMap and Secret keys (Kubernetes' IsConfigMapKey): no "/", so a file in a folder needs an item with a path. */
const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;

describe('deploy/theia-cloud: the manifests for Theia Cloud 1.1 and Kyverno 1.19', () => {
    const manifests = deployManifests();
    const appDefinition = manifest('AppDefinition');
    const policy = sessionPolicyFacts();
    const config = manifest('ConfigMap', 'qodeassist-managed') as unknown as { data: Record<string, string> };
    const secret = manifest('Secret', 'qodeassist-keys') as unknown as { stringData: Record<string, string> };
    const appSpec = appDefinition.spec as { name: string; uid: number; mountPath: string; minInstances: number; maxInstances: number };

    for (const document of manifests) {
        const id = `${document.apiVersion}/${document.kind}`;
        it(`${document.file}: ${document.kind} ${document.metadata.name} is named, in the theia-cloud namespace, with valid keys`, () => {
            assert.ok(document.metadata.name && document.metadata.namespace === 'theia-cloud', 'named, in the theia-cloud namespace');
            if (CORE_KINDS.has(id)) {
                const data = (document.data ?? document.stringData) as Record<string, string>;
                assert.deepEqual(Object.keys(data).filter(key => !CONFIG_MAP_KEY.test(key)), [], 'every key is a valid ConfigMap/Secret key');
            }
        });
    }

    it('the AppDefinition keeps its CRD\'s rule minInstances <= maxInstances, and runs as the image\'s user', () => {
        assert.ok(appSpec.minInstances <= appSpec.maxInstances);
        assert.match(readFileSync(join(DEPLOY_DIR, 'Dockerfile'), 'utf8'), new RegExp(`^USER ${appSpec.uid}$`, 'm'));
    });

    it('the policy changes only the Theia container, named as Theia Cloud names it: the AppDefinition\'s spec.name (not the oauth2-proxy sidecar)', () => {
        const runsTheia = `object.spec.containers.exists(c, c.name == '${appSpec.name}')`;
        assert.deepEqual(policy.conditions.map(conditions => conditions[0]), [runsTheia, runsTheia, runsTheia], 'each policy matches only pods running the app');
        assert.ok(policy.containerNames.length >= 3);
        assert.deepEqual([...new Set(policy.containerNames)], [appSpec.name]);
        assert.ok(!policy.expressions.join('\n').includes('"*"'), 'no wildcard container');
    });

    it('every session kind gets a writable workspace at the mountPath and a state dir outside it', () => {
        const stateDir = policy.env.QODEASSIST_STATE_DIR;
        assert.ok(stateDir, 'QODEASSIST_STATE_DIR is set');
        assert.ok(posix.relative(appSpec.mountPath, stateDir).startsWith('..'), `${stateDir} lies outside ${appSpec.mountPath}`);
        const [common, persistent, ephemeral] = policy.mounts;
        assert.equal(common['/tmp']?.name, 'qodeassist-tmp', 'the home (/tmp) is writable on a read-only root');
        // Persistent: the operator's workspace volume, split in two folders, neither inside the other.
        assert.deepEqual(persistent[appSpec.mountPath], { name: 'variables.workspaceMounts[0].name', subPath: 'workspace' });
        assert.deepEqual(persistent[stateDir], { name: 'variables.workspaceMounts[0].name', subPath: 'state' });
        // Ephemeral, eager, and the operator's fallback to ephemeral storage: an emptyDir each.
        assert.deepEqual(ephemeral[appSpec.mountPath], { name: 'qodeassist-workspace' });
        assert.deepEqual(ephemeral[stateDir], { name: 'qodeassist-state' });
        // Exactly one of the two applies to a pod: with or without the operator's volume at the mountPath.
        const mounted = `c.volumeMounts.exists(m, m.mountPath == '${appSpec.mountPath}')`;
        assert.ok(policy.conditions[1][1].includes(mounted) && !policy.conditions[1][1].startsWith('!'));
        assert.equal(policy.conditions[2][1], `!${policy.conditions[1][1]}`);
        assert.match(readFileSync(join(DEPLOY_DIR, 'Dockerfile'), 'utf8'), new RegExp(`QODEASSIST_STATE_DIR=${stateDir}\\b`));
    });

    it('a policy that sets an atomic list (a volume\'s items, a command) asks for Server-Side Apply, which alone may set one', () => {
        for (const document of manifests.filter(candidate => candidate.kind === 'NamespacedMutatingPolicy')) {
            const spec = document.spec as { mutations: Array<{ applyConfiguration: { expression: string } }>; evaluation?: { useServerSideApply?: boolean } };
            const setsAtomic = spec.mutations.some(mutation => /\bitems: \[|\bcommand: \[|\bargs: \[/.test(mutation.applyConfiguration.expression));
            assert.equal(spec.evaluation?.useServerSideApply === true, setsAtomic, `${document.metadata.name}: useServerSideApply exactly where an atomic list is set`);
        }
    });

    it('every key of the managed ConfigMap is placed at its path, and every placed key exists', () => {
        assert.equal(policy.configMapName, 'qodeassist-managed');
        assert.deepEqual(policy.managedItems.map(item => item.key).sort(), Object.keys(config.data).sort());
        for (const { path } of policy.managedItems) {
            assert.ok(!path.startsWith('/') && !path.split('/').includes('..'), `${path} stays in the volume`);
        }
    });

    it('the key file the policy names is a key of the Secret it mounts', () => {
        assert.equal(policy.secretName, 'qodeassist-keys');
        const file = policy.env.QODEASSIST_GATEWAY_API_KEY_FILE;
        assert.equal(posix.dirname(file), '/var/run/secrets/qodeassist');
        assert.equal(policy.mounts[0]['/var/run/secrets/qodeassist']?.name, 'qodeassist-keys');
        assert.ok(posix.basename(file) in secret.stringData);
        assert.equal(policy.env.QODEASSIST_MANAGED_DIR, '/etc/qodeassist/managed');
        assert.equal(policy.mounts[0]['/etc/qodeassist/managed']?.name, 'qodeassist-managed');
    });

    it('the managed layer, mounted as the kubelet mounts a ConfigMap, loads: its agent goes through the gateway, its policy and roster apply', () => {
        const scratch = mkdtempSync(join(tmpdir(), 'qodeassist-managed-volume-'));
        try {
            writeConfigMapVolume(scratch, config.data, policy.managedItems);
            const bundled = { bundledAgents: join(REPO_ROOT, 'agents'), bundledProviders: join(REPO_ROOT, 'providers') };
            const configuration = loadConfiguration({
                ...bundled, managed: scratch,
                gateway: { url: policy.env.QODEASSIST_GATEWAY_URL, kind: 'openai', userHeader: 'x-litellm-end-user-id', user: 'alice@corp.example' }
            });
            assert.deepEqual(configuration.issues.filter(issue => issue.severity === 'error').map(issue => `${issue.file}: ${issue.message}`), []);
            assert.equal(configuration.agents.get('corp-chat')?.url, 'https://llm-gateway.corp.example/v1/chat/completions');
            assert.equal(configuration.agents.get('corp-chat')?.model, 'corp-default');
            assert.equal(configuration.rosters.chat[0], 'corp-chat');
            assert.ok(configuration.policy, 'policy.toml is read through its link');
        } finally {
            rmSync(scratch, { recursive: true, force: true });
        }
    });

    it('no route around the policy is left in the manifests: sessions carry no keys as variables', () => {
        for (const session of manifests.filter(document => document.kind === 'Session')) {
            assert.equal((session.spec as Record<string, unknown>).envVarsFromSecrets, undefined);
        }
    });
});
