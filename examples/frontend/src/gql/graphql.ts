/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** What happened to a deployment. */
export type DeploymentChangeKind =
  /** The deployment was created. */
  | 'CREATED'
  /** The deployment was deleted; `deployment` is null. */
  | 'DELETED'
  /** The deployment, or one of its revisions, secrets, secret references or tag links, was changed. */
  | 'UPDATED';

/** Narrows a deployment list; every field given must match (AND). An empty string or list is the same as leaving the field out. */
export type DeploymentFilter = {
  /** Service tier. */
  deploymentType?: DeploymentType | null | undefined;
  /** Only these deployments (global ids or raw UUIDs, at most 100). */
  ids?: Array<string | number> | null | undefined;
  /** Exact image version. */
  imageVersion?: string | null | undefined;
  /** Case-insensitive substring of the name; `%`, `_` and `\` match literally. */
  nameContains?: string | null | undefined;
  /** Only deployments that are (true) or are not (false) reconciled with the remote. */
  remoteReconciled?: boolean | null | undefined;
  /** Any of these statuses. */
  statuses?: Array<DeploymentStatus> | null | undefined;
  /** Tag values (global ids or raw UUIDs, at most 100). Values of one tag key are alternatives; every key given must match. */
  tagValueIds?: Array<string | number> | null | undefined;
};

/** Where the deployed code comes from (REST: the lower-case value). */
export type DeploymentSource =
  /** A container image from an external registry. */
  | 'EXTERNAL_DOCKER'
  /** Built from a repository reached through a code-host integration. */
  | 'GITHUB'
  /** A container image from the service's own registry. */
  | 'INTERNAL_DOCKER'
  /** Built from an uploaded source archive. */
  | 'INTERNAL_SOURCE';

/** Lifecycle status of a deployment, as the deployment service reports it. */
export type DeploymentStatus =
  | 'AWAITING_DATABASE'
  | 'AWAITING_DELETE'
  | 'READY'
  | 'UNKNOWN'
  | 'UNUSED';

/** Service tier of a deployment (REST: `dev_free`, `dev`, `prod`). */
export type DeploymentType =
  /** Development tier (`dev`). */
  | 'DEV'
  /** Free development tier (`dev_free`). */
  | 'DEV_FREE'
  /** Production tier (`prod`). */
  | 'PROD';

/** Progress of one revision (build and rollout) of a deployment. */
export type RevisionStatus =
  | 'AWAITING_BUILD'
  | 'AWAITING_DEPLOY'
  | 'BUILDING'
  | 'BUILD_FAILED'
  | 'CREATE_FAILED'
  | 'CREATING'
  | 'DEPLOYED'
  | 'DEPLOYING'
  | 'DEPLOY_FAILED'
  | 'INTERRUPTED'
  | 'QUEUED'
  | 'SKIPPED'
  | 'UNKNOWN';

export type DeploymentSummaryFragment = { id: string, uuid: string, name: string, status: DeploymentStatus, imageVersion: string | null, updatedAt: string, sourceConfig: { deploymentType: DeploymentType } };

export type DashboardDeploymentsQueryVariables = Exact<{
  filter?: DeploymentFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type DashboardDeploymentsQuery = { tenant: { name: string }, deploymentsConnection: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, uuid: string, name: string, status: DeploymentStatus, imageVersion: string | null, updatedAt: string, sourceConfig: { deploymentType: DeploymentType } } }> } };

export type DeploymentDetailQueryVariables = Exact<{
  id: string | number;
}>;


export type DeploymentDetailQuery = { deployment: { createdAt: string, source: DeploymentSource, id: string, uuid: string, name: string, status: DeploymentStatus, imageVersion: string | null, updatedAt: string, sourceConfig: { repoUrl: string | null, deploymentType: DeploymentType, resourceSpec: { cpu: number | null, memoryMb: number | null, minScale: number | null, maxScale: number | null } | null }, tagValues: Array<{ value: string, tagKey: { key: string } }>, revisionPage: { totalCount: number, resources: Array<{ uuid: string, status: RevisionStatus, createdAt: string, sourceRevisionConfig: { repoRef: string | null, repoCommitSha: string | null, imageUri: string | null, sourceTarballPath: string | null } }> } } | null };

export type DeploymentUpdatedSubscriptionVariables = Exact<{
  filter?: DeploymentFilter | null | undefined;
}>;


export type DeploymentUpdatedSubscription = { deploymentUpdated: { kind: DeploymentChangeKind, deploymentId: string, deployment: { id: string, uuid: string, name: string, status: DeploymentStatus, imageVersion: string | null, updatedAt: string, sourceConfig: { deploymentType: DeploymentType } } | null } };

export const DeploymentSummaryFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"DeploymentSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"imageVersion"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"sourceConfig"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentType"}}]}}]}}]} as unknown as DocumentNode<DeploymentSummaryFragment, unknown>;
export const DashboardDeploymentsDocument = {"__meta__":{"hash":"sha256:8c2225329058654868dcd3bbe290801ab9a55ba2f6f668b4c331c0fffd9e28bf"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"DashboardDeployments"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"filter"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"DeploymentFilter"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenant"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}}]}},{"kind":"Field","name":{"kind":"Name","value":"deploymentsConnection"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"filter"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"DeploymentSummary"}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"DeploymentSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"imageVersion"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"sourceConfig"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentType"}}]}}]}}]} as unknown as DocumentNode<DashboardDeploymentsQuery, DashboardDeploymentsQueryVariables>;
export const DeploymentDetailDocument = {"__meta__":{"hash":"sha256:921d42d82f710dde0faa1f9f5f22f8ef65c84db6d99c8cd37cae61e35e065395"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"DeploymentDetail"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deployment"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"DeploymentSummary"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"sourceConfig"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"repoUrl"}},{"kind":"Field","name":{"kind":"Name","value":"resourceSpec"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cpu"}},{"kind":"Field","name":{"kind":"Name","value":"memoryMb"}},{"kind":"Field","name":{"kind":"Name","value":"minScale"}},{"kind":"Field","name":{"kind":"Name","value":"maxScale"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"tagValues"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"tagKey"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"revisionPage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"IntValue","value":"3"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"resources"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"sourceRevisionConfig"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"repoRef"}},{"kind":"Field","name":{"kind":"Name","value":"repoCommitSha"}},{"kind":"Field","name":{"kind":"Name","value":"imageUri"}},{"kind":"Field","name":{"kind":"Name","value":"sourceTarballPath"}}]}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"DeploymentSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"imageVersion"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"sourceConfig"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentType"}}]}}]}}]} as unknown as DocumentNode<DeploymentDetailQuery, DeploymentDetailQueryVariables>;
export const DeploymentUpdatedDocument = {"__meta__":{"hash":"sha256:aa5f18d58824ddaaaac019c1cad1228472abbb78984b5b79167ca1e6ed90cde8"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"DeploymentUpdated"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"filter"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"DeploymentFilter"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentUpdated"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"filter"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"deployment"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"DeploymentSummary"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"DeploymentSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"imageVersion"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"sourceConfig"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentType"}}]}}]}}]} as unknown as DocumentNode<DeploymentUpdatedSubscription, DeploymentUpdatedSubscriptionVariables>;