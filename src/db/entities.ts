// Every entity and embeddable the ORM knows, in one list (discovery is explicit, no folder scanning).
import { ApiKeySchema } from '../modules/tenancy/api-key.entity.ts';
import { TenantSchema } from '../modules/tenancy/tenant.entity.ts';
import { TenantOwnedSchema } from '../modules/common/base.entity.ts';
import { IntegrationSchema } from '../modules/integrations/integration.entity.ts';
import { SourceRepositorySchema } from '../modules/integrations/source-repository.entity.ts';
import { DeploymentSchema } from '../modules/deployments/deployment.entity.ts';
import { RevisionSchema } from '../modules/revisions/revision.entity.ts';
import { TagKeySchema, TagValueSchema } from '../modules/deployments/tag.entity.ts';
import { DeploymentTagValueSchema } from '../modules/deployments/deployment-tag-value.entity.ts';
import { SecretSchema } from '../modules/deployments/secret.entity.ts';
import { SecretReferenceSchema } from '../modules/deployments/secret-reference.entity.ts';
import { ResourceSpecSchema } from '../modules/deployments/resource-spec.embeddable.ts';
import {
  ListenerConfigSchema, SourceConfigSchema, SourceRevisionConfigSchema,
} from '../modules/deployments/source-config.embeddable.ts';
import {
  ContainerResourcesSchema, ContainerSchema, EnvVarSchema, ImagePullSecretSchema, VolumeMountSchema, VolumeSchema,
} from '../modules/deployments/container.embeddable.ts';

export const entities = [
  TenantSchema, ApiKeySchema, TenantOwnedSchema,
  IntegrationSchema, SourceRepositorySchema,
  DeploymentSchema, DeploymentTagValueSchema, RevisionSchema, TagKeySchema, TagValueSchema, SecretSchema, SecretReferenceSchema,
  SourceConfigSchema, ListenerConfigSchema, SourceRevisionConfigSchema, ResourceSpecSchema,
  ContainerSchema, ContainerResourcesSchema, EnvVarSchema, VolumeSchema, VolumeMountSchema, ImagePullSecretSchema,
];
