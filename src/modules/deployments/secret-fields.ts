// The fields of a deployment's `secrets` and `secret_references` (docs/legacy-api.md), declared once: the
// request models (writes/write-request-schema.ts), the GraphQL inputs (writes/write-inputs.graphql.ts), the
// GraphQL types (secret.graphql.ts), the entities (secret.entity.ts, secret-reference.entity.ts), the legacy
// record's schema (deployment-record.schema.ts) and the read model (deployment-read-model.ts) are made from
// these lists. Each is in the legacy record's key order, which the request models and the GraphQL types keep.
// The rows' own columns (the deployment, the position in the list, a secret's ciphertext) are the entities'.

/**
 * What a field holds: `text` is a non-empty string, stored as it is; `value` is a secret's value, any
 * string, stored only encrypted (the entity and the read model keep its ciphertext instead, secret-values.ts)
 * and shown only to keys that may read secrets (secret.graphql.ts).
 */
export type SecretFieldKind = 'text' | 'value';

export interface SecretField {
  readonly kind: SecretFieldKind;
  /** The GraphQL output field's description. */
  readonly description: string;
  /** The GraphQL input field's. */
  readonly inputDescription: string;
  /** The request model's (the OpenAPI document's), where the original's model gives one. */
  readonly requestDescription?: string;
}

// The original's model describes neither of a secret's fields.
export const SECRET_FIELDS = {
  name: { kind: 'text', description: 'Name of the secret.', inputDescription: 'Variable name.' },
  value: {
    kind: 'value', inputDescription: 'Value.',
    description: 'The plaintext value; null unless the API key was created with the read-secrets scope.',
  },
} as const satisfies Record<string, SecretField>;

export const SECRET_REFERENCE_FIELDS = {
  name: {
    kind: 'text', description: 'Name of the environment variable.', inputDescription: 'Variable name.',
    requestDescription: 'The environment variable to fill.',
  },
  secret_name: {
    kind: 'text', description: 'Name of the secret it reads.', inputDescription: 'Name of the Kubernetes Secret.',
    requestDescription: 'An existing Kubernetes Secret in the deployment\'s namespace.',
  },
  secret_key: {
    kind: 'text', description: 'Key within that secret.', inputDescription: 'Key inside it.',
    requestDescription: 'The key inside that Secret.',
  },
} as const satisfies Record<string, SecretField>;

type TextNames<Fields> = { [K in keyof Fields]: Fields[K] extends { kind: 'text' } ? K : never }[keyof Fields] & string;

/** A secret's keys: in REST bodies, legacy records and the GraphQL types (camelCase there). */
export type SecretName = keyof typeof SECRET_FIELDS;
/** The keys stored as they are (the entity's columns, the read model's keys), in the record's order. */
export type StoredSecretName = TextNames<typeof SECRET_FIELDS>;
export const STORED_SECRET_NAMES = (Object.keys(SECRET_FIELDS) as SecretName[])
  .filter((name): name is StoredSecretName => SECRET_FIELDS[name].kind === 'text');

/** A secret reference's keys, every one stored as it is. */
export type SecretReferenceName = keyof typeof SECRET_REFERENCE_FIELDS;

/**
 * An object of `make(field, name)` under each of `names` (by default every field of `fields`), in their
 * order: `fields` is SECRET_FIELDS or SECRET_REFERENCE_FIELDS.
 */
export function secretFieldsOf<Fields extends Record<string, SecretField>, Value, Name extends keyof Fields & string = keyof Fields & string>(
  fields: Fields, make: (field: SecretField, name: Name) => Value, names: readonly Name[] = Object.keys(fields) as Name[],
): Record<Name, Value> {
  return Object.fromEntries(names.map((name) => [name, make(fields[name]!, name)])) as Record<Name, Value>;
}
