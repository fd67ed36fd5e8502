// Value sets the original leaves open, as this project settles them (docs/decisions.md#value-sets).
export const DEPLOYMENT_STATUSES = ['AWAITING_DATABASE', 'READY', 'UNUSED', 'AWAITING_DELETE', 'UNKNOWN'] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

export const DEPLOYMENT_TYPES = ['dev_free', 'dev', 'prod'] as const;
export type DeploymentType = (typeof DEPLOYMENT_TYPES)[number];

export const DEPLOYMENT_SOURCES = ['github', 'external_docker', 'internal_docker', 'internal_source'] as const;
export type DeploymentSource = (typeof DEPLOYMENT_SOURCES)[number];

export const REVISION_STATUSES = [
  'CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'CREATE_FAILED',
  'BUILD_FAILED', 'DEPLOY_FAILED', 'DEPLOYED', 'SKIPPED', 'INTERRUPTED', 'UNKNOWN',
] as const;
export type RevisionStatus = (typeof REVISION_STATUSES)[number];
