import { builder } from '../../graphql/builder.ts';
import { secretUnreadable } from '../../graphql/errors.ts';
import { SecretDecryptionError } from '../secrets/secret-cipher.ts';
import type { SecretReferenceRow, SecretRow } from './deployment-row.ts';

export const SecretRef = builder.objectRef<SecretRow>('Secret').implement({
  description: 'A secret environment value of a deployment. Values are encrypted at rest.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Name of the secret.' }),
    value: t.string({
      nullable: true,
      description: 'The plaintext value; null unless the API key was created with the read-secrets scope.',
      // Decrypted only when selected and allowed: a key without the scope never causes a decryption.
      resolve: async (secret, _args, ctx) => {
        if (!ctx.secretValues || !secret.value_ciphertext) return null;
        try {
          return await ctx.secretValues.load(secret as typeof secret & { value_ciphertext: Buffer });
        } catch (error) {
          if (!(error instanceof SecretDecryptionError)) throw error;
          ctx.reportUnreadableSecret(error);
          throw secretUnreadable(error);
        }
      },
    }),
  }),
});

export const SecretReferenceRef = builder.objectRef<SecretReferenceRow>('SecretReference').implement({
  description: 'An environment variable filled from a key of a named secret.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Name of the environment variable.' }),
    secretName: t.exposeString('secret_name', { description: 'Name of the secret it reads.' }),
    secretKey: t.exposeString('secret_key', { description: 'Key within that secret.' }),
  }),
});
