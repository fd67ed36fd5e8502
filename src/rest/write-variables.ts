// A validated write body of the original's (snake_case keys, legacy enum values) as the mutations' input
// objects take it: our own objects' keys in camelCase, enum values by their GraphQL names, the Kubernetes parts'
// keys unchanged. The inverse of legacyBodyOf (modules/deployments/writes/write-inputs.graphql.ts): every REST
// write goes through both, and test/write-parity.test.ts compares its outcome with the same write by GraphQL.
import { camelCase } from '../modules/common/legacy-json.ts';

/** Keys whose values are objects of ours (or lists of them): their keys are converted too. */
const OWN_OBJECTS = new Set(['source_config', 'source_revision_config', 'resource_spec', 'listener_config', 'secrets', 'secret_references']);
/** Keys whose values are enum values: GraphQL names them in upper case. */
const ENUMS = new Set(['source', 'revision_source', 'deployment_type']);

export function graphqlInputOf(body: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    input[camelCase(key)] = value === null ? null
      : ENUMS.has(key) ? String(value).toUpperCase()
        : OWN_OBJECTS.has(key) ? ownObject(value) : value;
  }
  return input;
}

function ownObject(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ownObject);
  return typeof value === 'object' && value !== null ? graphqlInputOf(value as Record<string, unknown>) : value;
}
