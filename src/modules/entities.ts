// Every entity and embeddable of the domain, in one list: what the ORM is opened with (db/database.ts,
// db/orm-config.ts take it from their caller, so that the data layer imports nothing of the domain).
// Discovery is explicit, no folder scanning.
import { ApiKeySchema } from './tenancy/api-key.entity.ts';
import { TenantSchema } from './tenancy/tenant.entity.ts';
import { TenantDataVersionSchema } from './tenancy/data-version/tenant-data-version.entity.ts';
import { TenantDataChangeSchema } from './tenancy/data-version/tenant-data-change.entity.ts';
import { TenantOwnedSchema } from './common/base.entity.ts';
import { IntegrationSchema } from './integrations/integration.entity.ts';
import { SourceRepositorySchema } from './integrations/source-repository.entity.ts';
import { DeploymentSchema } from './deployments/deployment.entity.ts';
import { RevisionSchema } from './revisions/revision.entity.ts';
import { TagKeySchema, TagValueSchema } from './deployments/tag.entity.ts';
import { DeploymentTagValueSchema } from './deployments/deployment-tag-value.entity.ts';
import { SecretSchema } from './deployments/secret.entity.ts';
import { SecretReferenceSchema } from './deployments/secret-reference.entity.ts';
import { RevisionLogLineSchema } from './revisions/lifecycle/revision-log-line.entity.ts';
import { RevisionLeaseSchema } from './revisions/lifecycle/revision-lease.entity.ts';
import { IdempotencyRecordSchema } from './idempotency/idempotency-record.entity.ts';
import { SourceUploadSchema } from './storage/source-upload.entity.ts';
import { RegistryPushTokenSchema } from './registry/push-token.entity.ts';
import { ListenerSchema } from './listeners/listener.entity.ts';
import { ResourceSpecSchema } from './deployments/resource-spec.embeddable.ts';
import {
  ListenerConfigSchema, SourceConfigSchema, SourceRevisionConfigSchema,
} from './deployments/source-config.embeddable.ts';
import {
  ContainerResourcesSchema, ContainerSchema, EnvVarSchema, ImagePullSecretSchema, VolumeMountSchema, VolumeSchema,
} from './deployments/container.embeddable.ts';

export const entities = [
  TenantSchema, ApiKeySchema, TenantOwnedSchema, TenantDataVersionSchema, TenantDataChangeSchema,
  IntegrationSchema, SourceRepositorySchema,
  DeploymentSchema, DeploymentTagValueSchema, RevisionSchema, TagKeySchema, TagValueSchema, SecretSchema, SecretReferenceSchema,
  RevisionLogLineSchema, RevisionLeaseSchema, IdempotencyRecordSchema, SourceUploadSchema, RegistryPushTokenSchema, ListenerSchema,
  SourceConfigSchema, ListenerConfigSchema, SourceRevisionConfigSchema, ResourceSpecSchema,
  ContainerSchema, ContainerResourcesSchema, EnvVarSchema, VolumeSchema, VolumeMountSchema, ImagePullSecretSchema,
];
