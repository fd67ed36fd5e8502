// Types and the trusted-documents manifest of the operations in src/, generated from the gateway's
// schema.graphql by @graphql-codegen/client-preset into src/gql/ (`npm run codegen`). A test regenerates them
// and fails when the committed copy is stale, so a schema change that breaks this frontend fails CI.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  // Paths below are relative to this folder, wherever codegen is started from.
  cwd: path.dirname(fileURLToPath(import.meta.url)),
  schema: '../../schema.graphql',
  documents: ['src/**/*.ts', '!src/gql/**'],
  generates: {
    'src/gql/': {
      preset: 'client',
      presetConfig: {
        // src/gql/persisted-documents.json: document id (sha256:<hex>) → document, the manifest a gateway with
        // TRUSTED_DOCUMENTS=allow|require runs; each generated document carries its id as __meta__.hash.
        persistedDocuments: { hashAlgorithm: 'sha256' },
        // Plain result types, without useFragment(): this example has no components to hand fragments to.
        fragmentMasking: false,
      },
      config: {
        // What Node runs without a build step (type stripping) and `verbatimModuleSyntax` accepts.
        useTypeImports: true,
        importExtension: '.ts',
        enumsAsTypes: true,
        // How the gateway's custom scalars arrive in JSON.
        scalars: { DateTime: 'string', UUID: 'string', SafeInt: 'number', JSONObject: 'Record<string, unknown>', JSON: 'unknown' },
        strictScalars: true,
      },
    },
  },
};

export default config;
