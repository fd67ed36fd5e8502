// Image pushes in the schema (docs/decisions.md#image-pushes): `createPushToken` and its handler, which the REST
// door's `POST /v2/deployments/{deployment_id}/push-token` runs too, and the pull grant a data plane's lease
// carries for a revision whose image is in this service's registry.
import { builder } from '../../graphql/builder.ts';
import { MutationErrorRef } from '../deployments/writes/write-errors.graphql.ts';
import { DeploymentNotFound } from '../deployments/writes/write-problems.ts';
import { deploymentIdOf, requireWrite, writeScope } from '../deployments/writes/deployment-mutations.graphql.ts';
import type { GraphQLContext } from '../../graphql/context.ts';
import { RevisionLeaseRef } from '../revisions/lifecycle/data-plane-mutations.graphql.ts';
import type { ImagePull, PushTokenAnswer } from './container-registry.ts';
import { PushTokensUnavailable, RegistryNotConfigured, pushingDeployment } from './push-tokens.ts';

builder.objectType(PushTokensUnavailable, {
  name: 'PushTokensUnavailableError',
  interfaces: [MutationErrorRef],
  description: 'The deployment\'s source is not internal_docker: only those are pushed to (REST: 400).',
  fields: () => ({}),
});

builder.objectType(RegistryNotConfigured, {
  name: 'RegistryNotConfiguredError',
  interfaces: [MutationErrorRef],
  description: 'This service is configured with no container registry (REGISTRY_URL), so it issues no push tokens (REST: 501).',
  fields: () => ({}),
});

const CreatePushTokenInput = builder.inputType('CreatePushTokenInput', {
  description: 'The deployment an image is to be pushed for.',
  fields: (t) => ({
    clientMutationId: t.string({ description: 'Echoed in the payload.' }),
    deploymentId: t.id({ required: true, description: 'The deployment (raw UUID or global id).' }),
  }),
});

interface CreatedPushToken extends PushTokenAnswer {
  clientMutationId?: string | null;
}

const CreatePushTokenPayload = builder.objectRef<CreatedPushToken>('CreatePushTokenPayload').implement({
  description: 'A registry password for one deployment\'s repository, and where to push.',
  fields: (t) => ({
    clientMutationId: t.string({ nullable: true, description: 'As sent in the input.', resolve: (payload) => payload.clientMutationId ?? null }),
    token: t.exposeString('token', {
      description: 'The password to log in to the registry with, as user `oauth2accesstoken`: it grants push and pull on the deployment\'s repository '
        + 'and below, nothing else, until `expiresAt`, the deployment\'s deletion, or the revocation of the key that asked for it. Shown once; only its hash is kept.',
    }),
    registryUrl: t.exposeString('registryUrl', { description: '`<registry host>/<repository>`: push `<registryUrl>/<name>:<tag>`, then name `<registryUrl>/<name>@sha256:<digest>` as the image.' }),
    repository: t.exposeString('repository', { description: 'The deployment\'s repository path in the registry (without its host).' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'When the token stops working (an hour after it was issued).' }),
  }),
});

builder.mutationField('createPushToken', (t) => t.field({
  type: CreatePushTokenPayload,
  description: 'A password for this service\'s container registry, good for pushing an internal_docker deployment\'s image '
    + '(REST: POST /v2/deployments/{deployment_id}/push-token). Needs a key that may write.',
  args: { input: t.arg({ type: CreatePushTokenInput, required: true, description: 'The deployment.' }) },
  errors: {
    types: [DeploymentNotFound, PushTokensUnavailable, RegistryNotConfigured],
    union: { name: 'CreatePushTokenResult', description: 'Where to push and with which password, or why not.' },
  },
  resolve: async (_root, { input }, ctx) => {
    requireWrite(ctx);
    const id = deploymentIdOf(input.deploymentId, 'input.deploymentId');
    return { clientMutationId: input.clientMutationId, ...await issuePushToken(ctx, id) };
  },
}));

/** A push token for the deployment `id` (both doors' handler; the caller's door has checked it may write). */
export async function issuePushToken(ctx: GraphQLContext, id: string): Promise<PushTokenAnswer> {
  const scope = writeScope(ctx);
  if (!ctx.registry) {
    // The deployment's own refusals come first, as before a registry existed (docs/decisions.md#writes, 21-22).
    await pushingDeployment(scope.em, scope.tenantId, id);
    throw new RegistryNotConfigured();
  }
  const issued = await ctx.registry.issuePushToken(scope.em, scope.tenantId, id, ctx.principal.apiKeyId);
  await scope.afterCommit?.();
  return issued;
}

const ImagePullRef = builder.objectRef<ImagePull>('ImagePull').implement({
  description: 'How a data plane pulls a revision\'s image from this service\'s registry.',
  fields: (t) => ({
    token: t.exposeString('token', { description: 'A registry token allowing `pull` on `repository` only: send it as `Authorization: Bearer <token>` to the registry\'s API.' }),
    registry: t.exposeString('registry', { description: 'The registry\'s address (`https://…`).' }),
    repository: t.exposeString('repository', { description: 'The image\'s repository path.' }),
    reference: t.exposeString('reference', { description: 'Its digest (`sha256:…`), or a tag.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'When the token stops working (30 minutes after the claim).' }),
  }),
});

builder.objectField(RevisionLeaseRef, 'imagePull', (t) => t.field({
  type: ImagePullRef,
  nullable: true,
  description: 'For a revision whose image was pushed to this service\'s registry for its deployment: a pull-only token for it. Null for other images and sources.',
  resolve: (lease, _args, ctx) => ctx.registry?.pullGrant(lease.tenantId, lease.deploymentId, lease.imageUri) ?? null,
}));
