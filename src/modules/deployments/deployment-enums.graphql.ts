import { builder } from '../../graphql/builder.ts';
import { DEPLOYMENT_STATUSES, REVISION_STATUSES } from './deployment-enums.ts';

export const DeploymentStatusEnum = builder.enumType('DeploymentStatus', {
  description: 'Lifecycle status of a deployment, as the deployment service reports it.',
  values: DEPLOYMENT_STATUSES,
});

export const RevisionStatusEnum = builder.enumType('RevisionStatus', {
  description: 'Progress of one revision (build and rollout) of a deployment.',
  values: REVISION_STATUSES,
});

// GraphQL enum values are upper case by convention; the stored (and REST) values are the legacy ones.
export const DeploymentTypeEnum = builder.enumType('DeploymentType', {
  description: 'Service tier of a deployment (REST: `dev_free`, `dev`, `prod`).',
  values: {
    DEV_FREE: { value: 'dev_free', description: 'Free development tier (`dev_free`).' },
    DEV: { value: 'dev', description: 'Development tier (`dev`).' },
    PROD: { value: 'prod', description: 'Production tier (`prod`).' },
  } as const,
});

export const DeploymentSourceEnum = builder.enumType('DeploymentSource', {
  description: 'Where the deployed code comes from (REST: the lower-case value).',
  values: {
    GITHUB: { value: 'github', description: 'Built from a repository reached through a code-host integration.' },
    EXTERNAL_DOCKER: { value: 'external_docker', description: 'A container image from an external registry.' },
    INTERNAL_DOCKER: { value: 'internal_docker', description: 'A container image from the service\'s own registry.' },
    INTERNAL_SOURCE: { value: 'internal_source', description: 'Built from an uploaded source archive.' },
  } as const,
});
