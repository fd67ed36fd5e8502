/* eslint-disable */
import * as types from './graphql.ts';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  fragment DeploymentSummary on Deployment {\n    id\n    uuid\n    name\n    status\n    imageVersion\n    updatedAt\n    sourceConfig { deploymentType }\n  }\n": typeof types.DeploymentSummaryFragmentDoc,
    "\n  query DashboardDeployments($filter: DeploymentFilter, $first: Int, $after: String) {\n    tenant { name }\n    deploymentsConnection(filter: $filter, first: $first, after: $after) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { ...DeploymentSummary } }\n    }\n  }\n": typeof types.DashboardDeploymentsDocument,
    "\n  query DeploymentDetail($id: ID!) {\n    deployment(id: $id) {\n      ...DeploymentSummary\n      createdAt\n      source\n      sourceConfig { repoUrl resourceSpec { cpu memoryMb minScale maxScale } }\n      tagValues { value tagKey { key } }\n      revisionPage(limit: 3) {\n        totalCount\n        resources { uuid status createdAt sourceRevisionConfig { repoRef repoCommitSha imageUri sourceTarballPath } }\n      }\n    }\n  }\n": typeof types.DeploymentDetailDocument,
    "\n  subscription DeploymentUpdated($filter: DeploymentFilter) {\n    deploymentUpdated(filter: $filter) {\n      kind\n      deploymentId\n      deployment { ...DeploymentSummary }\n    }\n  }\n": typeof types.DeploymentUpdatedDocument,
};
const documents: Documents = {
    "\n  fragment DeploymentSummary on Deployment {\n    id\n    uuid\n    name\n    status\n    imageVersion\n    updatedAt\n    sourceConfig { deploymentType }\n  }\n": types.DeploymentSummaryFragmentDoc,
    "\n  query DashboardDeployments($filter: DeploymentFilter, $first: Int, $after: String) {\n    tenant { name }\n    deploymentsConnection(filter: $filter, first: $first, after: $after) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { ...DeploymentSummary } }\n    }\n  }\n": types.DashboardDeploymentsDocument,
    "\n  query DeploymentDetail($id: ID!) {\n    deployment(id: $id) {\n      ...DeploymentSummary\n      createdAt\n      source\n      sourceConfig { repoUrl resourceSpec { cpu memoryMb minScale maxScale } }\n      tagValues { value tagKey { key } }\n      revisionPage(limit: 3) {\n        totalCount\n        resources { uuid status createdAt sourceRevisionConfig { repoRef repoCommitSha imageUri sourceTarballPath } }\n      }\n    }\n  }\n": types.DeploymentDetailDocument,
    "\n  subscription DeploymentUpdated($filter: DeploymentFilter) {\n    deploymentUpdated(filter: $filter) {\n      kind\n      deploymentId\n      deployment { ...DeploymentSummary }\n    }\n  }\n": types.DeploymentUpdatedDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment DeploymentSummary on Deployment {\n    id\n    uuid\n    name\n    status\n    imageVersion\n    updatedAt\n    sourceConfig { deploymentType }\n  }\n"): (typeof documents)["\n  fragment DeploymentSummary on Deployment {\n    id\n    uuid\n    name\n    status\n    imageVersion\n    updatedAt\n    sourceConfig { deploymentType }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashboardDeployments($filter: DeploymentFilter, $first: Int, $after: String) {\n    tenant { name }\n    deploymentsConnection(filter: $filter, first: $first, after: $after) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { ...DeploymentSummary } }\n    }\n  }\n"): (typeof documents)["\n  query DashboardDeployments($filter: DeploymentFilter, $first: Int, $after: String) {\n    tenant { name }\n    deploymentsConnection(filter: $filter, first: $first, after: $after) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { ...DeploymentSummary } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DeploymentDetail($id: ID!) {\n    deployment(id: $id) {\n      ...DeploymentSummary\n      createdAt\n      source\n      sourceConfig { repoUrl resourceSpec { cpu memoryMb minScale maxScale } }\n      tagValues { value tagKey { key } }\n      revisionPage(limit: 3) {\n        totalCount\n        resources { uuid status createdAt sourceRevisionConfig { repoRef repoCommitSha imageUri sourceTarballPath } }\n      }\n    }\n  }\n"): (typeof documents)["\n  query DeploymentDetail($id: ID!) {\n    deployment(id: $id) {\n      ...DeploymentSummary\n      createdAt\n      source\n      sourceConfig { repoUrl resourceSpec { cpu memoryMb minScale maxScale } }\n      tagValues { value tagKey { key } }\n      revisionPage(limit: 3) {\n        totalCount\n        resources { uuid status createdAt sourceRevisionConfig { repoRef repoCommitSha imageUri sourceTarballPath } }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription DeploymentUpdated($filter: DeploymentFilter) {\n    deploymentUpdated(filter: $filter) {\n      kind\n      deploymentId\n      deployment { ...DeploymentSummary }\n    }\n  }\n"): (typeof documents)["\n  subscription DeploymentUpdated($filter: DeploymentFilter) {\n    deploymentUpdated(filter: $filter) {\n      kind\n      deploymentId\n      deployment { ...DeploymentSummary }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;