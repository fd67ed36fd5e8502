import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';
import { createdAt, updatedAt } from '../common/columns.ts';
import { IntegrationRepository } from './integration.repository.ts';
import { INTEGRATION_KINDS, type IntegrationKind } from './integration-kinds.ts';

export const IntegrationSchema = defineEntity({
  name: 'Integration',
  extends: TenantOwnedSchema,
  repository: () => IntegrationRepository,
  properties: {
    kind: p.enum([...INTEGRATION_KINDS]).$type<IntegrationKind>(),
    /** The code host's name, e.g. `github`; legacy paths accept it in place of the literal `codehost`. */
    codehost: p.text(),
    /** Display name, e.g. the organisation the integration reaches. */
    name: p.text(),
    /**
     * The code host's id of the installation (e.g. a GitHub App installation); bigint like repository ids.
     * Null when the import did not say (documents of the older format): such an integration is not listed
     * by the `/install` routes (docs/decisions.md#integration-installations).
     */
    installationId: p.bigint('number').nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export type Integration = InferEntity<typeof IntegrationSchema>;
