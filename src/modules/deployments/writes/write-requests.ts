// The parts of the write bodies (write-request-schema.ts declares them) that the writer and its rules take
// apart, and which keys of them name something to build.
import type { CreateRequest, PatchRequest } from './write-request-schema.ts';

export type { CreateRequest, PatchRequest };
export type SourceConfigRequest = CreateRequest['source_config'];
export type SourceRevisionConfigRequest = CreateRequest['source_revision_config'];
export type SecretRequest = CreateRequest['secrets'][number];
export type SecretReferenceRequest = NonNullable<CreateRequest['secret_references']>[number];

/** The keys of source_revision_config whose value names something to build. */
export const BUILD_KEYS = ['repo_ref', 'image_uri', 'source_tarball_path'] as const;
/** The keys whose non-null value in a PATCH makes a new revision (with `secrets` and `resource_spec`). */
export const REVISION_KEYS = ['repo_ref', 'graph_config_path', 'image_uri', 'source_tarball_path'] as const;
