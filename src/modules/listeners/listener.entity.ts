// A listener (shared/spec/original-listeners.md): a tenant's own compute, today a Kubernetes cluster, that runs
// the deployments naming it in `source_config.listener_id`. Its agent is a data plane whose key is bound to it
// (`npm run apikey -- create --reconcile --listener <id>`, docs/decisions.md#listeners).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';
import { createdAt, updatedAt } from '../common/columns.ts';
import { LISTENER_COMPUTE_TYPES, type ListenerComputeType } from './listener-compute-types.ts';
import { ListenerRepository } from './listener.repository.ts';

export const ListenerSchema = defineEntity({
  name: 'Listener',
  extends: TenantOwnedSchema,
  repository: () => ListenerRepository,
  // "A listener must have a unique combination of workspace_id and compute_id" (the original's create model).
  uniques: [{ properties: ['tenant', 'computeId'] }],
  // The listing orders by created_at desc, id desc within a tenant, as the deployment list does.
  indexes: [{ properties: ['tenant', 'createdAt', 'id'] }],
  properties: {
    computeType: p.enum([...LISTENER_COMPUTE_TYPES]).$type<ListenerComputeType>(),
    computeId: p.text(),
    /** `compute_config.k8s_namespaces`; null when not given. */
    k8sNamespaces: p.json<string[]>().nullable(),
    /** The listener's version: set by PATCH, and by its data plane when it reports one (claims, heartbeats). */
    version: p.text().nullable(),
    /** When a data plane bound to the listener last called (a claim or a heartbeat); null: never. */
    lastContactAt: p.datetime().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export type Listener = InferEntity<typeof ListenerSchema>;
