// The Listener node, the tenant's `listeners` (a connection; REST: GET /v2/listeners pages it by offset),
// `listener(id)` and `Deployment.listener`.
import { offsetToCursor, resolveOffsetConnection } from '@pothos/plugin-relay';
import { builder } from '../../graphql/builder.ts';
import { badUserInput } from '../../graphql/errors.ts';
import { uuidOfArgument } from '../../graphql/global-id.ts';
import { loadNodes } from '../../graphql/loaders.ts';
import { MAX_PAGE_SIZE } from '../../graphql/paging.ts';
import { keyOf } from '../../graphql/selected-columns.ts';
import { DeploymentRef } from '../deployments/deployment.graphql.ts';
import type { ListenerReadModel } from './listener-read-model.ts';
import { isOnline, ONLINE_WINDOW_SECONDS } from './listener-online.ts';

export const ListenerComputeTypeEnum = builder.enumType('ListenerComputeType', {
  description: 'The kind of compute a listener is.',
  values: { K8S: { value: 'k8s', description: 'A Kubernetes cluster.' } } as const,
});

export const ListenerRef = builder.objectRef<ListenerReadModel>('Listener');

const ListenerComputeConfigRef = builder.objectRef<ListenerReadModel>('ListenerComputeConfig').implement({
  description: 'Fields of a listener specific to its compute type.',
  fields: (t) => ({
    k8sNamespaces: t.stringList({
      nullable: true, description: 'The Kubernetes namespaces the listener serves: a deployment on it names one of them (`listenerConfig.k8sNamespace`).',
      resolve: (listener) => listener.k8s_namespaces,
    }),
  }),
});

builder.node(ListenerRef, {
  description: 'A cluster of the tenant\'s own that runs the deployments naming it (REST: /v2/listeners); its agent is a data plane whose key is bound to it.',
  id: { resolve: (listener) => listener.id },
  loadMany: (ids, ctx) => loadNodes(ctx.loaders.listeners.byId, ids),
  fields: (t) => ({
    uuid: t.field({ type: 'UUID', description: 'Raw id (`id` in REST, `source_config.listener_id` of a deployment).', resolve: (l) => l.id }),
    computeType: t.expose('compute_type', { type: ListenerComputeTypeEnum, description: 'Cannot be changed once the listener is created.' }),
    computeId: t.exposeString('compute_id', { description: 'The tenant\'s unique name of the compute (the Kubernetes cluster name, say); cannot be changed.' }),
    computeConfig: t.field({ type: ListenerComputeConfigRef, description: 'Fields specific to the compute type.', resolve: (l) => l }),
    version: t.exposeString('version', { nullable: true, description: 'The version of the listener: set by a PATCH, or reported by its data plane.' }),
    lastContactAt: t.expose('last_contact_at', {
      type: 'DateTime', nullable: true, description: 'When a data plane bound to the listener last called (a claim or a heartbeat); null: never.',
    }),
    online: t.boolean({
      description: `Whether a data plane bound to the listener called within the last ${ONLINE_WINDOW_SECONDS} seconds (docs/decisions.md#listeners).`,
      resolve: (l) => isOnline(l.last_contact_at),
    }),
    createdAt: t.expose('created_at', { type: 'DateTime', description: 'When the listener was registered.' }),
    updatedAt: t.expose('updated_at', { type: 'DateTime', description: 'When the listener last changed (its data plane\'s calls change it too).' }),
  }),
});

builder.queryField('listeners', (t) => t.connection({
  type: ListenerRef,
  description: 'The tenant\'s listeners, newest first (created_at, then id, descending) (REST: GET /v2/listeners, whose `offset` is this field\'s).',
  args: { offset: t.arg.int({ description: 'Listeners to skip, as REST\'s `offset`; instead of `after`.' }) },
  resolve: async (_root, args, ctx) => {
    const { offset, ...connection } = args;
    if (offset != null) {
      if (offset < 0) throw badUserInput('offset', `must be 0 or more; got ${offset}`);
      if (connection.after != null || connection.last != null) throw badUserInput('offset', 'give offset with first only');
      if (offset > 0) connection.after = offsetToCursor(offset - 1);
    }
    for (const [name, value] of [['first', connection.first], ['last', connection.last]] as const) {
      if (value != null && (value < 1 || value > MAX_PAGE_SIZE)) throw badUserInput(name, `must be between 1 and ${MAX_PAGE_SIZE}; got ${value}`);
    }
    return resolveOffsetConnection({ args: connection, defaultSize: 20, maxSize: MAX_PAGE_SIZE }, ({ limit, offset: from }) => ctx.loaders.listeners.page(limit, from));
  },
}, { name: 'ListenerConnection', description: 'A page of the tenant\'s listeners.' }, { name: 'ListenerEdge', description: 'A listener and its cursor.' }));

builder.queryField('listener', (t) => t.field({
  type: ListenerRef,
  nullable: true,
  description: 'One listener of the tenant (REST: GET /v2/listeners/{listener_id}); null when the tenant has none of that id.',
  args: { id: t.arg.id({ required: true, description: 'The listener: its global id, or its raw UUID.' }) },
  resolve: (_root, args, ctx) => {
    const id = uuidOfArgument(String(args.id), 'Listener', 'id');
    return id ? ctx.loaders.listeners.byId.load(id) : null;
  },
}));

builder.objectField(DeploymentRef, 'listener', (t) => t.field({
  type: ListenerRef,
  nullable: true,
  extensions: keyOf('source_config', 'listener_id'),
  description: 'The listener whose cluster runs the deployment (`sourceConfig.listenerId`), if any (null too for an id the tenant has no listener of).',
  resolve: (d, _args, ctx) => (d.source_config?.listener_id ? ctx.loaders.listeners.byId.load(d.source_config.listener_id) : null),
}));
