import { builder } from '../../graphql/builder.ts';
import { secretUnreadable } from '../../graphql/errors.ts';
import type { GraphQLResolveInfo } from 'graphql';
import { columnsOf, selectedColumns } from '../../graphql/selected-columns.ts';
import { VALUE_COLUMN } from './secret-values.ts';
import { camelCaseKeys } from '../common/legacy-json.ts';
import { SECRET_FIELDS, SECRET_REFERENCE_FIELDS, secretFieldsOf, type StoredSecretName } from './secret-fields.ts';
import type { SecretReferenceReadModel, SecretReadModel } from './deployment-read-model.ts';

export const SecretRef = builder.objectRef<SecretReadModel>('Secret').implement({
  description: 'A secret environment value of a deployment. Values are encrypted at rest.',
  // The fields of secret-fields.ts: a stored one exposes its column; the value is the ciphertext's, decrypted.
  fields: (t) => camelCaseKeys(secretFieldsOf(SECRET_FIELDS, (field, name) => (field.kind === 'text'
    ? t.exposeString(name as StoredSecretName, { extensions: columnsOf(name), description: field.description })
    : t.string({
      nullable: true,
      extensions: columnsOf(VALUE_COLUMN),
      description: field.description,
      // Decrypted only when selected and allowed: a key without the scope never causes a decryption. A page's
      // values arrive decrypted with their rows (secret-values.ts); a row read otherwise is decrypted here.
      resolve: (secret, _args, ctx) => {
        if (!ctx.principal.mayReadSecrets || secret.value_ciphertext == null) return null;
        const revealed = secret.revealed
          ?? ctx.cipher.decryptOrError({ stored: Buffer.from(secret.value_ciphertext, 'base64'), slot: { deploymentId: secret.deployment_id, name: secret.name }, keyFingerprint: secret.key_fingerprint ?? null });
        if (typeof revealed === 'string') return revealed;
        ctx.reportUnreadableSecret(revealed);
        throw secretUnreadable(revealed);
      },
    })))),
});

export const SecretReferenceRef = builder.objectRef<SecretReferenceReadModel>('SecretReference').implement({
  description: 'An environment variable filled from a key of a named secret.',
  // The fields of secret-fields.ts, each exposing its column.
  fields: (t) => camelCaseKeys(secretFieldsOf(SECRET_REFERENCE_FIELDS, (field, name) => t.exposeString(name, { description: field.description }))),
});

// Whether a `secrets` selection asks for values, per request (its variables may turn a field on or off) and
// per field node: asked once per deployment of a page, decided once.
const decided = new WeakMap<object, WeakMap<object, boolean>>();

/** Whether the `secrets` field being resolved selects `value` (or something that might: then yes). */
export function selectsSecretValues(info: GraphQLResolveInfo): boolean {
  let perRequest = decided.get(info.variableValues);
  if (!perRequest) decided.set(info.variableValues, (perRequest = new WeakMap<object, boolean>()));
  const node = info.fieldNodes[0]!;
  let selects = perRequest.get(node);
  if (selects === undefined) {
    selects = selectedColumns(info, [])?.includes(VALUE_COLUMN) ?? true;
    perRequest.set(node, selects);
  }
  return selects;
}
