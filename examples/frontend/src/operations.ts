// The operations of the dashboard. `npm run codegen` turns each into a typed document in src/gql/ (result and
// variable types from schema.graphql) and an entry of the trusted-documents manifest.
import { graphql } from './gql/gql.ts';

/** What a line of the dashboard shows of a deployment, in the list and in the detail. */
export const DeploymentSummary = graphql(`
  fragment DeploymentSummary on Deployment {
    id
    uuid
    name
    status
    imageVersion
    updatedAt
    sourceConfig { deploymentType }
  }
`);

/** The dashboard's list: newest first, a page at a time (pass pageInfo.endCursor back as `after`). */
export const DashboardDeployments = graphql(`
  query DashboardDeployments($filter: DeploymentFilter, $first: Int, $after: String) {
    tenant { name }
    deploymentsConnection(filter: $filter, first: $first, after: $after) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { ...DeploymentSummary } }
    }
  }
`);

/** One deployment, by its global id or raw UUID: where it comes from, its resources, tags and latest revisions. */
export const DeploymentDetail = graphql(`
  query DeploymentDetail($id: ID!) {
    deployment(id: $id) {
      ...DeploymentSummary
      createdAt
      source
      sourceConfig { repoUrl resourceSpec { cpu memoryMb minScale maxScale } }
      tagValues { value tagKey { key } }
      revisionPage(limit: 3) {
        totalCount
        resources { uuid status createdAt sourceRevisionConfig { repoRef repoCommitSha imageUri sourceTarballPath } }
      }
    }
  }
`);

/** Changes to the deployments the dashboard shows, as they happen (server-sent events; deployment null when DELETED). */
export const DeploymentUpdated = graphql(`
  subscription DeploymentUpdated($filter: DeploymentFilter) {
    deploymentUpdated(filter: $filter) {
      kind
      deploymentId
      deployment { ...DeploymentSummary }
    }
  }
`);
