// Source archives in the schema (docs/decisions.md#source-archives): `createSourceUpload` and its handler, which
// the REST door's `POST /v2/deployments/{deployment_id}/upload-url` runs too, and the download URL a data plane builds from, on a
// Revision and on a claim's lease. Only data-plane keys (--reconcile) see download URLs: they carry the
// permission to read the archive, and a dashboard has no use for them.
import { GraphQLError } from 'graphql';
import { builder } from '../../graphql/builder.ts';
import type { GraphQLContext } from '../../graphql/context.ts';
import { MutationErrorRef } from '../deployments/writes/write-errors.graphql.ts';
import { DeploymentNotFound } from '../deployments/writes/write-problems.ts';
import { deploymentIdOf, requireWrite, writeScope } from '../deployments/writes/deployment-mutations.graphql.ts';
import { RevisionRef } from '../revisions/revision.graphql.ts';
import { RevisionLeaseRef } from '../revisions/lifecycle/data-plane-mutations.graphql.ts';
import { SourceUploadsUnavailable, type IssuedUpload, type SourceArchives } from './source-archives.ts';

const ARCHIVE_URL = 'A signed URL that downloads the source archive with a plain GET (no API key), valid 30 to 60 minutes; '
  + 'the same URL throughout a half hour. Null for other sources, for a path this service did not issue (imported), and for keys that are not a data plane\'s (--reconcile).';

function archivesOf(ctx: GraphQLContext): SourceArchives {
  if (!ctx.sourceArchives) throw new GraphQLError('This service keeps no source archives.', { extensions: { code: 'UNAVAILABLE' } });
  return ctx.sourceArchives;
}

/** The download URL, for a data plane's key; null otherwise or without a path. */
export const archiveUrlFor = (ctx: GraphQLContext, path: string | null | undefined) =>
  (ctx.principal.mayReconcile && path && ctx.sourceArchives ? ctx.sourceArchives.downloadUrl(path) : null);

builder.objectType(SourceUploadsUnavailable, {
  name: 'SourceUploadsUnavailableError',
  interfaces: [MutationErrorRef],
  description: 'The deployment does not build from source archives: only internal_source and internal_docker deployments do (REST: 400).',
  fields: () => ({}),
});

const CreateSourceUploadInput = builder.inputType('CreateSourceUploadInput', {
  description: 'The deployment an archive is to be uploaded for.',
  fields: (t) => ({
    clientMutationId: t.string({ description: 'Echoed in the payload.' }),
    deploymentId: t.id({ required: true, description: 'The deployment (raw UUID or global id).' }),
  }),
});

interface CreatedUpload extends IssuedUpload {
  clientMutationId?: string | null;
}

const CreateSourceUploadPayload = builder.objectRef<CreatedUpload>('CreateSourceUploadPayload').implement({
  description: 'Where to PUT the archive, and the path to name as `sourceTarballPath` afterwards.',
  fields: (t) => ({
    clientMutationId: t.string({ nullable: true, description: 'As sent in the input.', resolve: (payload) => payload.clientMutationId ?? null }),
    uploadUrl: t.exposeString('uploadUrl', { description: 'An absolute, signed URL: one PUT of the archive\'s bytes stores it, without an API key, until `expiresAt`.' }),
    objectPath: t.exposeString('objectPath', { description: 'The path to send as `sourceRevisionConfig.sourceTarballPath` (REST: `source_tarball_path`) once uploaded.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'When the upload URL stops working. A path no update named within an hour of being issued is removed.' }),
    maxBytes: t.exposeInt('maxBytes', { description: 'The largest archive accepted, in bytes.' }),
  }),
});

builder.mutationField('createSourceUpload', (t) => t.field({
  type: CreateSourceUploadPayload,
  description: 'A signed URL to upload a source archive for an internal_source build, and the object path to name in `updateDeployment` '
    + '(REST: POST /v2/deployments/{deployment_id}/upload-url). Needs a key that may write.',
  args: { input: t.arg({ type: CreateSourceUploadInput, required: true, description: 'The deployment.' }) },
  errors: { types: [DeploymentNotFound, SourceUploadsUnavailable], union: { name: 'CreateSourceUploadResult', description: 'Where to upload, or why not.' } },
  resolve: async (_root, { input }, ctx) => {
    requireWrite(ctx);
    const id = deploymentIdOf(input.deploymentId, 'input.deploymentId');
    return { clientMutationId: input.clientMutationId, ...await issueSourceUpload(ctx, id) };
  },
}));

/** An upload URL for the deployment `id` (both doors' handler; the caller's door has checked it may write). */
export async function issueSourceUpload(ctx: GraphQLContext, id: string): Promise<IssuedUpload> {
  const scope = writeScope(ctx);
  const issued = await archivesOf(ctx).issue(scope.em, scope.tenantId, id);
  await scope.afterCommit?.();
  return issued;
}

builder.objectField(RevisionRef, 'sourceArchiveUrl', (t) => t.string({
  nullable: true,
  description: `Where the archive of an internal_source revision is. ${ARCHIVE_URL}`,
  resolve: (revision, _args, ctx) => archiveUrlFor(ctx, revision.source === 'internal_source' ? revision.source_revision_config?.source_tarball_path : null),
}));

builder.objectField(RevisionLeaseRef, 'sourceArchiveUrl', (t) => t.string({
  nullable: true,
  description: `Where the archive of the claimed revision is, when it builds from one (internal_source). ${ARCHIVE_URL}`,
  resolve: (lease, _args, ctx) => archiveUrlFor(ctx, lease.sourceTarballPath),
}));
