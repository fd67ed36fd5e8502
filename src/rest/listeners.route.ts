// The original's listener operations (docs/rest.md#listeners): GET and POST /v2/listeners, GET, PATCH and
// DELETE /v2/listeners/{listener_id}. A read runs its GraphQL query; a write, validated first as FastAPI
// validates the original's models, runs the handler its mutation runs (modules/listeners) with that body, then
// reads the listener it left with its query; refusals become the original's status codes (refusal-answers.ts).
import { checkListenerCreate, checkListenerPatch, type ListenerCreateBody, type ListenerPatchBody } from '../modules/listeners/listener-request-schema.ts';
import { createListenerIn, deleteListenerIn, updateListenerIn } from '../modules/listeners/listener-mutations.graphql.ts';
import { nextOffset, pageParameters, pageVariables } from './offset-pages.ts';
import { legacyResponseSchema } from './response-schemas.ts';
import type { RestRoute } from './rest-route.ts';

const LISTENER_FIELDS = 'version compute_type: computeType compute_id: computeId compute_config: computeConfig { k8s_namespaces: k8sNamespaces } id: uuid created_at: createdAt updated_at: updatedAt';

interface ListenerJson {
  compute_type: string;
  [key: string]: unknown;
}

/** The original's record: `compute_type` in lower case, as its Literal. */
const toLegacyJson = (listener: ListenerJson) => ({ ...listener, compute_type: listener.compute_type.toLowerCase() });

export const listenerNotFound = (id: unknown) => ({ status: 404, body: { detail: `Listener ID ${String(id)} not found.` } });
const LISTENER_NOT_FOUND = '`Listener ID <listener_id> not found.`: unknown, or another tenant\'s.';
const listenerIdParameter = { name: 'listener_id', in: 'path', kind: 'uuid', description: 'ID of the listener.' } as const;

/** The query of the listener a write left, as its answer shows it. */
const listenerDocument = (name: string) => `query ${name}($id: ID!) { listener(id: $id) { ${LISTENER_FIELDS} } }`;

export const listListenersRoute: RestRoute = {
  path: '/v2/listeners',
  operationId: 'list_listeners_v2_listeners_get',
  summary: 'List Listeners',
  description: 'Listeners of the tenant, newest first (created_at, then id, descending), paged by offset as the deployment list is.',
  tag: 'listeners',
  parameters: pageParameters,
  document: `query LegacyListListeners($first: Int!, $offset: Int!) {
  listeners(first: $first, offset: $offset) { edges { node { ${LISTENER_FIELDS} } } }
}`,
  variables: ({ values }) => {
    const { limit, offset } = pageVariables(values);
    return { first: limit, offset };
  },
  respond: (data, { values }) => {
    const resources = (data.listeners.edges as { node: ListenerJson }[]).map(({ node }) => toLegacyJson(node));
    const { offset } = pageVariables(values);
    return { status: 200, body: { resources, offset: nextOffset(values, offset + resources.length) } };
  },
  responseSchema: legacyResponseSchema('ListenersList'),
};

export const createListenerRoute: RestRoute = {
  path: '/v2/listeners',
  method: 'POST',
  operationId: 'create_listener_v2_listeners_post',
  summary: 'Create Listener',
  description: 'Registers a cluster of the tenant\'s own. A listener must have a unique combination of tenant and `compute_id`.',
  tag: 'listeners',
  parameters: [],
  body: checkListenerCreate,
  bodySchema: 'ListenerCreateRequest',
  bodyExample: { compute_type: 'k8s', compute_id: 'prod-eu-1', compute_config: { k8s_namespaces: ['apps'] } },
  operationName: 'LegacyCreateListener',
  write: (ctx, { body }) => createListenerIn(ctx, body as ListenerCreateBody),
  document: listenerDocument('LegacyCreateListener'),
  variables: (_call, id) => ({ id }),
  respond: (data) => ({ status: 201, body: toLegacyJson(data.listener) }),
  successStatus: 201,
  otherResponses: { 409: { description: '`Listener for tenant ID \'<tenant_id>\' and compute ID \'<compute_id>\' already exists.`' } },
  responseSchema: legacyResponseSchema('Listener'),
};

export const getListenerRoute: RestRoute = {
  path: '/v2/listeners/{listener_id}',
  operationId: 'get_listener_v2_listeners__listener_id__get',
  summary: 'Get Listener',
  description: 'One listener of the tenant.',
  tag: 'listeners',
  parameters: [listenerIdParameter],
  document: `query LegacyGetListener($id: ID!) { listener(id: $id) { ${LISTENER_FIELDS} } }`,
  variables: ({ values }) => ({ id: values.listener_id }),
  respond: (data, { values }) => (data.listener ? { status: 200, body: toLegacyJson(data.listener) } : listenerNotFound(values.listener_id)),
  responseSchema: legacyResponseSchema('Listener'),
  notFound: LISTENER_NOT_FOUND,
};

export const patchListenerRoute: RestRoute = {
  path: '/v2/listeners/{listener_id}',
  method: 'PATCH',
  operationId: 'patch_listener_v2_listeners__listener_id__patch',
  summary: 'Patch Listener',
  description: 'Changes a listener\'s `version` and/or `compute_config` (replaced whole). Namespaces that deployments on the listener run in must stay (409 otherwise).',
  tag: 'listeners',
  parameters: [listenerIdParameter],
  body: checkListenerPatch,
  bodySchema: 'ListenerPatchRequest',
  bodyExample: { compute_config: { k8s_namespaces: ['apps', 'batch'] } },
  operationName: 'LegacyPatchListener',
  write: (ctx, { values, body }) => updateListenerIn(ctx, values.listener_id as string, body as ListenerPatchBody),
  document: listenerDocument('LegacyPatchListener'),
  variables: (_call, id) => ({ id }),
  respond: (data) => ({ status: 200, body: toLegacyJson(data.listener) }),
  otherResponses: { 409: { description: 'The new `k8s_namespaces` leave out namespaces deployments on the listener run in (the message names them); nothing was changed.' } },
  responseSchema: legacyResponseSchema('Listener'),
  notFound: LISTENER_NOT_FOUND,
};

export const deleteListenerRoute: RestRoute = {
  path: '/v2/listeners/{listener_id}',
  method: 'DELETE',
  operationId: 'delete_listener_v2_listeners__listener_id__delete',
  summary: 'Delete Listener',
  description: 'Deletes a listener that no deployment names (409 while some do).',
  tag: 'listeners',
  parameters: [listenerIdParameter],
  operationName: 'LegacyDeleteListener',
  write: (ctx, { values }) => deleteListenerIn(ctx, values.listener_id as string),
  respond: () => ({ status: 204, body: null }),
  successStatus: 204,
  otherResponses: { 409: { description: 'Deployments name the listener: `Listener ID <listener_id> is named by <n> deployments; delete them first.`' } },
  responseSchema: null,
  notFound: LISTENER_NOT_FOUND,
};

export const listenerRoutes = [listListenersRoute, createListenerRoute, getListenerRoute, patchListenerRoute, deleteListenerRoute];
