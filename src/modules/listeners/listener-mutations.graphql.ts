// The listener mutations (Relay style: one `input`, a payload) and the handlers they share with the REST door's
// /v2/listeners writes (rest/listeners.route.ts). Each needs a key that may write (checked here for GraphQL, by
// the REST door for its own); a mutation turns its input into the request body once and validates it with the
// models the REST door validates with (listener-request-schema.ts). A refusal the user can fix is a typed result.
import { builder } from '../../graphql/builder.ts';
import type { GraphQLContext } from '../../graphql/context.ts';
import { uuidOfArgument } from '../../graphql/global-id.ts';
import { requireWrite, writeScope } from '../deployments/writes/deployment-mutations.graphql.ts';
import { MutationErrorRef } from '../deployments/writes/write-errors.graphql.ts';
import { legacyBodyOf } from '../deployments/writes/write-inputs.graphql.ts';
import { InvalidValues } from '../deployments/writes/write-problems.ts';
import { ListenerComputeTypeEnum, ListenerRef } from './listener.graphql.ts';
import { ListenerComputeIdTaken, ListenerInUse, ListenerNamespacesInUse, ListenerNotFound } from './listener-problems.ts';
import { checkListenerCreate, checkListenerPatch, type ListenerCreateBody, type ListenerPatchBody } from './listener-request-schema.ts';
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

const listenerScope = (ctx: GraphQLContext): ListenerWriteScope => {
  const { em, tenantId, afterCommit } = writeScope(ctx);
  return { em, tenantId, afterCommit };
};

/** The listener an `id` names, or ListenerNotFound (a global id of another type names none). */
const listenerIdOf = (id: string | number): string => {
  const uuid = uuidOfArgument(String(id), 'Listener', 'input.id');
  if (!uuid) throw new ListenerNotFound(String(id));
  return uuid;
};

/** An input as the request body its REST twin takes, validated as the REST door validates it (InvalidValues). */
function validated<Body>(check: (json: unknown) => { ok: true; value: Body } | { ok: false; errors: InvalidValues['problems'] }, body: Record<string, unknown>): Body {
  const checked = check(body);
  if (!checked.ok) throw new InvalidValues(checked.errors);
  return checked.value;
}

// The handlers, for both doors: a request its door has validated (and its permission checked); the listener's id.

export const createListenerIn = (ctx: GraphQLContext, body: ListenerCreateBody): Promise<string> => createListener(listenerScope(ctx), body);

export const updateListenerIn = (ctx: GraphQLContext, id: string, body: ListenerPatchBody): Promise<string> => updateListener(listenerScope(ctx), id, body);

export const deleteListenerIn = (ctx: GraphQLContext, id: string): Promise<void> => deleteListener(listenerScope(ctx), id);

builder.mutationField('createListener', (t) => t.field({
  type: ListenerPayload('CreateListenerPayload', 'The listener registered.'),
  description: 'Registers a listener (REST: POST /v2/listeners).',
  args: { input: t.arg({ type: CreateListenerInput, required: true, description: 'The listener.' }) },
  errors: { types: [InvalidValues, ListenerComputeIdTaken], union: { name: 'CreateListenerResult', description: 'The listener registered, or why not.' } },
  resolve: async (_root, { input }, ctx) => {
    requireWrite(ctx);
    const body = validated(checkListenerCreate, legacyBodyOf(input, ['clientMutationId']));
    return { clientMutationId: input.clientMutationId, listenerId: await createListenerIn(ctx, body) };
  },
}));

builder.mutationField('updateListener', (t) => t.field({
  type: ListenerPayload('UpdateListenerPayload', 'The listener changed.'),
  description: 'Changes a listener\'s version or compute config (REST: PATCH /v2/listeners/{listener_id}).',
  args: { input: t.arg({ type: UpdateListenerInput, required: true, description: 'The listener and what to change.' }) },
  errors: { types: [InvalidValues, ListenerNotFound, ListenerNamespacesInUse], union: { name: 'UpdateListenerResult', description: 'The listener changed, or why not.' } },
  resolve: async (_root, { input }, ctx) => {
    requireWrite(ctx);
    const id = listenerIdOf(input.id);
    const body = validated(checkListenerPatch, legacyBodyOf(input, ['clientMutationId', 'id']));
    return { clientMutationId: input.clientMutationId, listenerId: await updateListenerIn(ctx, id, body) };
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
    requireWrite(ctx);
    const id = listenerIdOf(input.id);
    await deleteListenerIn(ctx, id);
    return { clientMutationId: input.clientMutationId, deletedId: id };
  },
}));
