// The deployment mutations (Relay style: one `input`, a payload with `clientMutationId`) and the handlers they
// share with the REST door's write routes (rest/deployment-writes.route.ts). A mutation checks the caller may
// write (requireWrite; the REST door has checked it before it validates), turns its input into the original's
// request body once (legacyBodyOf) and validates it with the same models the REST door does, then runs the
// handler: the write of deployment-writer.ts in the caller's write scope (reads from the primary for the rest
// of the operation: what it wrote is there first), the request's loaders primed with what it wrote. A refusal
// the user can fix is a typed result (write-errors.graphql.ts); on the REST door, its status (refusal-answers.ts).
import { GraphQLError } from 'graphql';
import { builder } from '../../../graphql/builder.ts';
import { readFromPrimary, type GraphQLContext } from '../../../graphql/context.ts';
import { badUserInput } from '../../../graphql/errors.ts';
import { uuidOfArgument } from '../../../graphql/global-id.ts';
import { DeploymentRef } from '../deployment.graphql.ts';
import {
  MAX_BULK_DELETE, createDeployment, deleteDeployment, deleteDeployments, redeployRevision, updateDeployment, type WriteScope, type WrittenDeployment,
} from './deployment-writer.ts';
import type { CreateRequest, PatchRequest } from './write-requests.ts';
import { CHANGE_ERRORS } from './write-errors.graphql.ts';
import {
  CreateDeploymentInput, DeleteDeploymentInput, DeleteDeploymentsInput, RedeployRevisionInput, UpdateDeploymentInput, legacyBodyOf,
} from './write-inputs.graphql.ts';
import { DeploymentNameTaken, DeploymentNotFound, InvalidValues, READ_ONLY_KEY, RevisionNotFound } from './write-problems.ts';
import { validateCreateRequest, validatePatchRequest } from './validate-write-request.ts';

/** The GraphQL door's permission check of a write (the REST door makes its own, a 403 before its 422). */
export function requireWrite(ctx: GraphQLContext): void {
  if (!ctx.principal.mayWrite) throw new GraphQLError(READ_ONLY_KEY, { extensions: { code: 'FORBIDDEN', http: { status: 403 } } });
}

/**
 * The caller's write scope (its door has checked it may write); the operation's reads go to the primary from
 * here on, and nothing read before the write answers after it.
 */
export function writeScope(ctx: GraphQLContext): WriteScope {
  readFromPrimary(ctx);
  ctx.loaders.forgetAll();
  return {
    em: ctx.primaryEm(), tenantId: ctx.principal.tenantId, cipher: ctx.cipher, sourceArchives: ctx.sourceArchives, registry: ctx.registry,
    afterCommit: ctx.afterCommit,
  };
}

/** The id of a deployment a write left as `written`, which the answer's fields then show without reading it back. */
function wrote(ctx: GraphQLContext, written: WrittenDeployment): string {
  ctx.loaders.deployments.wrote(written);
  return written.row.id;
}

// The handlers, for both doors: each takes a request its door has validated (and its permission checked) and
// returns the id of the deployment the answer shows.

export const createDeploymentIn = async (ctx: GraphQLContext, request: CreateRequest): Promise<string> =>
  wrote(ctx, await createDeployment(writeScope(ctx), request));

export const updateDeploymentIn = async (ctx: GraphQLContext, id: string, request: PatchRequest, ifMatch: string | undefined): Promise<string> =>
  wrote(ctx, await updateDeployment(writeScope(ctx), id, request, ifMatch));

export const deleteDeploymentIn = (ctx: GraphQLContext, id: string, ifMatch: string | undefined): Promise<void> => deleteDeployment(writeScope(ctx), id, ifMatch);

export const deleteDeploymentsIn = (ctx: GraphQLContext, ids: readonly string[]) => deleteDeployments(writeScope(ctx), ids);

export const redeployRevisionIn = async (ctx: GraphQLContext, id: string, revisionId: string, ifMatch: string | undefined): Promise<string> =>
  wrote(ctx, await redeployRevision(writeScope(ctx), id, revisionId, ifMatch));

/** The deployment an `id` names, or DeploymentNotFound (a global id of another type names none). */
export function deploymentIdOf(id: string | number, argument: string): string {
  const uuid = uuidOfArgument(String(id), 'Deployment', argument);
  if (!uuid) throw new DeploymentNotFound(String(id));
  return uuid;
}

interface ChangedDeployment {
  clientMutationId?: string | null;
  deploymentId: string;
}

const DeploymentPayload = (name: string, description: string) => builder.objectRef<ChangedDeployment>(name).implement({
  description,
  fields: (t) => ({
    clientMutationId: t.string({ nullable: true, description: 'As sent in the input.', resolve: (payload) => payload.clientMutationId ?? null }),
    deployment: t.field({
      type: DeploymentRef, description: 'The deployment as the write left it.',
      resolve: async (payload, _args, ctx) => (await ctx.loaders.deployments.byId.load(payload.deploymentId))!,
    }),
  }),
});

const CreateDeploymentPayload = DeploymentPayload('CreateDeploymentPayload', 'The deployment created.');
const UpdateDeploymentPayload = DeploymentPayload('UpdateDeploymentPayload', 'The deployment changed.');
const RedeployRevisionPayload = DeploymentPayload('RedeployRevisionPayload', 'The deployment with its new revision.');

builder.mutationField('createDeployment', (t) => t.field({
  type: CreateDeploymentPayload,
  description: 'Creates a deployment (REST: POST /v2/deployments).',
  args: { input: t.arg({ type: CreateDeploymentInput, required: true, description: 'The deployment to create.' }) },
  errors: { types: [InvalidValues, DeploymentNameTaken], union: { name: 'CreateDeploymentResult', description: 'The deployment created, or why not.' } },
  resolve: async (_root, { input }, ctx) => {
    requireWrite(ctx);
    const body = { source_config: {}, source_revision_config: {}, secrets: [], ...legacyBodyOf(input, ['clientMutationId']) };
    const validated = validateCreateRequest(body);
    if (!validated.ok) throw new InvalidValues(validated.errors);
    return { clientMutationId: input.clientMutationId, deploymentId: await createDeploymentIn(ctx, validated.value) };
  },
}));

builder.mutationField('updateDeployment', (t) => t.field({
  type: UpdateDeploymentPayload,
  description: 'Changes a deployment (REST: PATCH /v2/deployments/{deployment_id}); a change of what is built makes a new revision.',
  args: { input: t.arg({ type: UpdateDeploymentInput, required: true, description: 'The deployment and what to change.' }) },
  errors: { types: CHANGE_ERRORS, union: { name: 'UpdateDeploymentResult', description: 'The deployment changed, or why not.' } },
  resolve: async (_root, { input }, ctx) => {
    requireWrite(ctx);
    const id = deploymentIdOf(input.id, 'input.id');
    const validated = validatePatchRequest(legacyBodyOf(input, ['clientMutationId', 'id', 'ifMatch']));
    if (!validated.ok) throw new InvalidValues(validated.errors);
    return { clientMutationId: input.clientMutationId, deploymentId: await updateDeploymentIn(ctx, id, validated.value, input.ifMatch ?? undefined) };
  },
}));

interface DeletedDeployment {
  clientMutationId?: string | null;
  deletedId: string;
}

const DeleteDeploymentPayload = builder.objectRef<DeletedDeployment>('DeleteDeploymentPayload').implement({
  description: 'The deployment deleted.',
  fields: (t) => ({
    clientMutationId: t.string({ nullable: true, description: 'As sent in the input.', resolve: (payload) => payload.clientMutationId ?? null }),
    deletedId: t.field({ type: 'UUID', description: 'Raw id of the deployment that no longer exists.', resolve: (payload) => payload.deletedId }),
  }),
});

builder.mutationField('deleteDeployment', (t) => t.field({
  type: DeleteDeploymentPayload,
  description: 'Deletes a deployment with its revisions, secrets and tags (REST: DELETE /v2/deployments/{deployment_id}).',
  args: { input: t.arg({ type: DeleteDeploymentInput, required: true, description: 'The deployment to delete.' }) },
  errors: { types: [DeploymentNotFound, ...CHANGE_ERRORS.filter((type) => type !== InvalidValues && type !== DeploymentNotFound)], union: { name: 'DeleteDeploymentResult', description: 'The deployment deleted, or why not.' } },
  resolve: async (_root, { input }, ctx) => {
    requireWrite(ctx);
    const id = deploymentIdOf(input.id, 'input.id');
    await deleteDeploymentIn(ctx, id, input.ifMatch ?? undefined);
    return { clientMutationId: input.clientMutationId, deletedId: id };
  },
}));

interface DeletedDeployments {
  clientMutationId?: string | null;
  deleted: string[];
  notFound: string[];
}

const DeleteDeploymentsPayload = builder.objectRef<DeletedDeployments>('DeleteDeploymentsPayload').implement({
  description: 'What a bulk delete did: the deployments deleted, and those the tenant does not have.',
  fields: (t) => ({
    clientMutationId: t.string({ nullable: true, description: 'As sent in the input.', resolve: (payload) => payload.clientMutationId ?? null }),
    deletedIds: t.field({ type: ['UUID'], description: 'Raw ids of the deployments deleted.', resolve: (payload) => payload.deleted }),
    notFoundIds: t.field({ type: ['ID'], description: 'Raw ids the tenant has no deployment of (nothing deleted for them).', resolve: (payload) => payload.notFound }),
  }),
});

builder.mutationField('deleteDeployments', (t) => t.field({
  type: DeleteDeploymentsPayload,
  description: `Deletes up to ${MAX_BULK_DELETE} deployments in one transaction (REST: DELETE /v2/deployments?deployment_ids=…); ids the tenant does not have are reported, not an error.`,
  args: { input: t.arg({ type: DeleteDeploymentsInput, required: true, description: 'The deployments to delete.' }) },
  resolve: async (_root, { input }, ctx) => {
    requireWrite(ctx);
    if (input.ids.length > MAX_BULK_DELETE) throw badUserInput('input.ids', `at most ${MAX_BULK_DELETE} ids; got ${input.ids.length}`);
    const notFound: string[] = [];
    const ids = input.ids.flatMap((id) => {
      const uuid = uuidOfArgument(String(id), 'Deployment', 'input.ids');
      if (!uuid) notFound.push(String(id));
      return uuid ? [uuid] : [];
    });
    const result = await deleteDeploymentsIn(ctx, ids);
    return { clientMutationId: input.clientMutationId, deleted: result.deleted, notFound: [...notFound, ...result.notFound] };
  },
}));

builder.mutationField('redeployRevision', (t) => t.field({
  type: RedeployRevisionPayload,
  description: 'Builds a revision again, as a new revision (REST: POST /v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy).',
  args: { input: t.arg({ type: RedeployRevisionInput, required: true, description: 'The deployment and the revision to build again.' }) },
  errors: { types: [DeploymentNotFound, RevisionNotFound, ...CHANGE_ERRORS.filter((type) => type !== InvalidValues && type !== DeploymentNotFound)], union: { name: 'RedeployRevisionResult', description: 'The deployment with its new revision, or why not.' } },
  resolve: async (_root, { input }, ctx) => {
    requireWrite(ctx);
    const id = deploymentIdOf(input.deploymentId, 'input.deploymentId');
    return { clientMutationId: input.clientMutationId, deploymentId: await redeployRevisionIn(ctx, id, input.revisionId, input.ifMatch ?? undefined) };
  },
}));
