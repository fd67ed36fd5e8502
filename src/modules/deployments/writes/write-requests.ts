// The parts of the write bodies (write-request-schema.ts declares them) that the writer and its rules take
// apart, and which keys of them name something to build.
import { BUILD_NAMES, REVISION_REQUEST_NAMES } from '../source-config-fields.ts';
import type { CreateRequest, PatchRequest } from './write-request-schema.ts';

export type { CreateRequest, PatchRequest };
export type SourceConfigRequest = CreateRequest['source_config'];
export type SourceRevisionConfigRequest = CreateRequest['source_revision_config'];
export type SecretRequest = CreateRequest['secrets'][number];
export type SecretReferenceRequest = NonNullable<CreateRequest['secret_references']>[number];

/** The keys of source_revision_config whose value names something to build (source-config-fields.ts). */
export const BUILD_KEYS = BUILD_NAMES;
/** The keys whose non-null value in a PATCH makes a new revision (with `secrets` and `resource_spec`): every one a request may send. */
export const REVISION_KEYS = REVISION_REQUEST_NAMES;
