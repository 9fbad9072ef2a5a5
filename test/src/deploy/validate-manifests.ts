import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv = require('ajv');
import { deployManifests } from './theia-cloud-manifests';

/*
 * Validates deploy/theia-cloud's manifests against the CRD schemas of Theia Cloud and Kyverno:
 *   node test/lib/deploy/validate-manifests.js <folder of schema JSON files>
 * Each file holds { apiVersion, kind, schema } with the CRD's openAPIV3Schema. The schemas are the
 * projects' own data, which this repository does not carry: take them from the CRD YAML of the
 * versions README names (Theia Cloud 1.1: AppDefinition v1beta10, Session v1beta8, Workspace
 * v1beta5; Kyverno 1.19: NamespacedMutatingPolicy policies.kyverno.io/v1).
 */

export type Schema = Record<string, unknown>;

/**
 * A CRD's structural schema as JSON Schema: the API server prunes a field the schema does not
 * name (it is silently dropped), so here an unnamed field is an error; int-or-string and nullable
 * as Kubernetes reads them; formats (int32, int64) are advisory there and left out.
 */
export function asJsonSchema(node: unknown): unknown {
    if (Array.isArray(node)) {
        return node.map(asJsonSchema);
    }
    if (!node || typeof node !== 'object') {
        return node;
    }
    const schema = node as Schema;
    const out: Schema = {};
    for (const [key, value] of Object.entries(schema)) {
        if (!key.startsWith('x-kubernetes-') && key !== 'format' && key !== 'nullable') {
            out[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as Schema).map(([name, sub]) => [name, asJsonSchema(sub)])) : asJsonSchema(value);
        }
    }
    if (schema['x-kubernetes-int-or-string'] === true) {
        return { anyOf: [{ type: 'integer' }, { type: 'string' }] };
    }
    if (schema.type === 'object' && schema.properties && schema.additionalProperties === undefined && schema['x-kubernetes-preserve-unknown-fields'] !== true) {
        out.additionalProperties = false;
    }
    if (schema.nullable === true && typeof out.type === 'string') {
        out.type = [out.type, 'null'];
    }
    return out;
}

/** Kubernetes' own kinds, which no CRD describes. */
const CORE_KINDS = new Set(['v1/ConfigMap', 'v1/Secret']);

/** The problems of every manifest against the schemas in `folder`: empty when all are valid. */
export function manifestProblems(folder: string): string[] {
    const schemas = readdirSync(folder).filter(name => name.endsWith('.json'))
        .map(name => JSON.parse(readFileSync(join(folder, name), 'utf8')) as { apiVersion: string; kind: string; schema: Schema });
    const problems: string[] = [];
    for (const document of deployManifests()) {
        const id = `${document.apiVersion}/${document.kind}`;
        if (CORE_KINDS.has(id)) {
            continue;
        }
        const crd = schemas.find(candidate => candidate.apiVersion === document.apiVersion && candidate.kind === document.kind);
        if (!crd) {
            problems.push(`${document.file}: no schema for ${id} in ${folder}`);
            continue;
        }
        const validate = new Ajv({ allErrors: true }).compile(asJsonSchema(crd.schema) as object);
        // The API server checks apiVersion, kind and metadata itself; the CRD's schema is for the rest.
        const body = Object.fromEntries(Object.entries(document).filter(([key]) => !['file', 'apiVersion', 'kind', 'metadata'].includes(key)));
        if (!validate(body)) {
            problems.push(`${document.file}: ${document.kind} ${document.metadata.name}: ${JSON.stringify(validate.errors)}`);
        }
    }
    return problems;
}

if (require.main === module) {
    const folder = process.argv[2];
    assert.ok(folder, 'usage: validate-manifests.js <folder of CRD schema JSON files>');
    const problems = manifestProblems(folder);
    console.log(problems.length ? problems.join('\n') : 'every manifest is valid for its CRD schema');
    process.exit(problems.length ? 1 : 0);
}
