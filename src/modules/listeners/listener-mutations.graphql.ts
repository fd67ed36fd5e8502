// The listener mutations (Relay style: one `input`, a payload), for GraphQL clients and the REST door's
// /v2/listeners writes alike. Each needs a key that may write; a refusal the user can fix is a typed result.
import { builder } from '../../graphql/builder.ts';
import { uuidOfArgument } from '../../graphql/global-id.ts';
import { writeScope } from '../deployments/writes/deployment-mutations.graphql.ts';
import { MutationErrorRef } from '../deployments/writes/write-errors.graphql.ts';
import { InvalidValues, valueError } from '../deployments/writes/write-problems.ts';
import { unstorableText } from '../common/storable-text.ts';
import { ListenerComputeTypeEnum, ListenerRef } from './listener.graphql.ts';
import { ListenerComputeIdTaken, ListenerInUse, ListenerNamespacesInUse, ListenerNotFound } from './listener-problems.ts';
import { createListener, deleteListener, updateListener, type ListenerWriteScope } from './listener-writer.ts';

builder.objectType(ListenerNotFound, {
  name: 'ListenerNotFoundError',
  interfaces: [MutationErrorRef],
  description: 'The tenant has no listener of that id.',
  fields: (t) => ({ id: t.exposeString('listenerId', { description: 'The id asked for.' }) }),
});

builder.objectType(ListenerComputeIdTaken, {
  name: 'ListenerComputeIdTakenError',
  interfaces: [MutationErrorRef],
  description: 'The tenant already has a listener of that compute id (compute ids are unique within a tenant).',
  fields: (t) => ({ computeId: t.exposeString('computeId', { description: 'The compute id asked for.' }) }),
});

builder.objectType(ListenerInUse, {
  name: 'ListenerInUseError',
  interfaces: [MutationErrorRef],
  description: 'Deployments name the listener: it is deleted only once none does (docs/decisions.md#listeners).',
  fields: (t) => ({ deploymentCount: t.exposeInt('deploymentCount', { description: 'How many deployments name it.' }) }),
});

builder.objectType(ListenerNamespacesInUse, {
  name: 'ListenerNamespacesInUseError',
  interfaces: [MutationErrorRef],
  description: 'The new k8sNamespaces leave out namespaces that deployments on the listener run in; nothing was changed.',
  fields: (t) => ({ namespaces: t.exposeStringList('namespaces', { description: 'The namespaces in use that must stay.' }) }),
});

const ListenerComputeConfigInput = builder.inputType('ListenerComputeConfigInput', {
  description: 'Fields of a listener specific to its compute type.',
  fields: (t) => ({ k8sNamespaces: t.stringList({ description: 'The Kubernetes namespaces the listener serves.' }) }),
});

const CreateListenerInput = builder.inputType('CreateListenerInput', {
  description: 'A listener to register (REST: the body of POST /v2/listeners).',
  fields: (t) => ({
    clientMutationId: t.string({ description: 'Echoed in the payload.' }),
    computeType: t.field({ type: ListenerComputeTypeEnum, required: true, description: 'Only K8S.' }),
    computeId: t.string({ required: true, description: 'The tenant\'s unique name of the compute (the cluster name, say).' }),
    computeConfig: t.field({ type: ListenerComputeConfigInput, required: true, description: 'Its namespaces.' }),
    version: t.string({ description: 'The version of the listener.' }),
  }),
});

const UpdateListenerInput = builder.inputType('UpdateListenerInput', {
  description: 'What to change of a listener (REST: the body of PATCH /v2/listeners/{listener_id}); absent fields are kept.',
  fields: (t) => ({
    clientMutationId: t.string({ description: 'Echoed in the payload.' }),
    id: t.id({ required: true, description: 'The listener (raw UUID or global id).' }),
    version: t.string({ description: 'The version; null clears it.' }),
    computeConfig: t.field({ type: ListenerComputeConfigInput, description: 'Replaces the whole compute config; null keeps it.' }),
  }),
});

const DeleteListenerInput = builder.inputType('DeleteListenerInput', {
  description: 'The listener to delete.',
  fields: (t) => ({
    clientMutationId: t.string({ description: 'Echoed in the payload.' }),
    id: t.id({ required: true, description: 'The listener (raw UUID or global id).' }),
  }),
});

interface ChangedListener {
  clientMutationId?: string | null;
  listenerId: string;
}

const ListenerPayload = (name: string, description: string) => builder.objectRef<ChangedListener>(name).implement({
  description,
  fields: (t) => ({
    clientMutationId: t.string({ nullable: true, description: 'As sent in the input.', resolve: (payload) => payload.clientMutationId ?? null }),
    listener: t.field({ type: ListenerRef, description: 'The listener as the write left it.', resolve: async (payload, _args, ctx) => (await ctx.loaders.listeners.byId.load(payload.listenerId))! }),
  }),
});

const listenerScope = (ctx: Parameters<typeof writeScope>[0]): ListenerWriteScope => {
  const { em, tenantId, afterCommit } = writeScope(ctx);
  return { em, tenantId, afterCommit };
};

/** The listener an `id` names, or ListenerNotFound (a global id of another type names none). */
const listenerIdOf = (id: string | number): string => {
  const uuid = uuidOfArgument(String(id), 'Listener', 'input.id');
  if (!uuid) throw new ListenerNotFound(String(id));
  return uuid;
};

/** Texts PostgreSQL cannot hold (a NUL), refused as the deployment writes refuse them, at their REST place. */
function refuseUnstorable(texts: [loc: (string | number)[], text: string | null | undefined][]): void {
  const problems = texts.flatMap(([loc, text]) => {
    const problem = text == null ? undefined : unstorableText(text);
    return problem ? [valueError(loc, text, problem)] : [];
  });
  if (problems.length > 0) throw new InvalidValues(problems);
}

const namespaceTexts = (namespaces: readonly string[] | null | undefined) =>
  (namespaces ?? []).map((namespace, index) => [['compute_config', 'k8s_namespaces', index], namespace] as [(string | number)[], string]);

builder.mutationField('createListener', (t) => t.field({
  type: ListenerPayload('CreateListenerPayload', 'The listener registered.'),
  description: 'Registers a listener (REST: POST /v2/listeners).',
  args: { input: t.arg({ type: CreateListenerInput, required: true, description: 'The listener.' }) },
  errors: { types: [InvalidValues, ListenerComputeIdTaken], union: { name: 'CreateListenerResult', description: 'The listener registered, or why not.' } },
  resolve: async (_root, { input }, ctx) => {
    const scope = listenerScope(ctx);
    refuseUnstorable([[['version'], input.version], [['compute_id'], input.computeId], ...namespaceTexts(input.computeConfig.k8sNamespaces)]);
    const listenerId = await createListener(scope, {
      computeType: input.computeType, computeId: input.computeId, k8sNamespaces: input.computeConfig.k8sNamespaces ?? null, version: input.version ?? null,
    });
    return { clientMutationId: input.clientMutationId, listenerId };
  },
}));

builder.mutationField('updateListener', (t) => t.field({
  type: ListenerPayload('UpdateListenerPayload', 'The listener changed.'),
  description: 'Changes a listener\'s version or compute config (REST: PATCH /v2/listeners/{listener_id}).',
  args: { input: t.arg({ type: UpdateListenerInput, required: true, description: 'The listener and what to change.' }) },
  errors: { types: [InvalidValues, ListenerNotFound, ListenerNamespacesInUse], union: { name: 'UpdateListenerResult', description: 'The listener changed, or why not.' } },
  resolve: async (_root, { input }, ctx) => {
    const scope = listenerScope(ctx);
    const id = listenerIdOf(input.id);
    refuseUnstorable([[['version'], input.version], ...namespaceTexts(input.computeConfig?.k8sNamespaces)]);
    const listenerId = await updateListener(scope, id, {
      ...(input.version !== undefined && { version: input.version }),
      ...(input.computeConfig != null && { k8sNamespaces: input.computeConfig.k8sNamespaces ?? null }),
    });
    return { clientMutationId: input.clientMutationId, listenerId };
  },
}));

builder.mutationField('deleteListener', (t) => t.field({
  type: builder.objectRef<{ clientMutationId?: string | null; deletedId: string }>('DeleteListenerPayload').implement({
    description: 'The listener deleted.',
    fields: (p) => ({
      clientMutationId: p.string({ nullable: true, description: 'As sent in the input.', resolve: (payload) => payload.clientMutationId ?? null }),
      deletedId: p.field({ type: 'UUID', description: 'Raw id of the listener that no longer exists.', resolve: (payload) => payload.deletedId }),
    }),
  }),
  description: 'Deletes a listener no deployment names (REST: DELETE /v2/listeners/{listener_id}).',
  args: { input: t.arg({ type: DeleteListenerInput, required: true, description: 'The listener.' }) },
  errors: { types: [ListenerNotFound, ListenerInUse], union: { name: 'DeleteListenerResult', description: 'The listener deleted, or why not.' } },
  resolve: async (_root, { input }, ctx) => {
    const scope = listenerScope(ctx);
    const id = listenerIdOf(input.id);
    await deleteListener(scope, id);
    return { clientMutationId: input.clientMutationId, deletedId: id };
  },
}));
