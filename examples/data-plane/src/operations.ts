// The four GraphQL mutations a data plane sends (docs/graphql.md#data-planes), the query that reads where a remote
// build's config file is, and the shape of their answers. The types are written by hand: five small documents
// against a stable part of the schema. A test
// (test/example-data-plane.test.ts) validates these documents against the gateway's schema, so a schema change
// that breaks them fails CI before a data plane finds out.

import type { ImagePull } from './registry-image.ts';

/** A revision status, as the schema's `RevisionStatus` enum spells it. */
export type RevisionStatus =
  | 'CREATING' | 'QUEUED' | 'AWAITING_BUILD' | 'BUILDING' | 'AWAITING_DEPLOY' | 'DEPLOYING' | 'CREATE_FAILED'
  | 'BUILD_FAILED' | 'DEPLOY_FAILED' | 'DEPLOYED' | 'SKIPPED' | 'INTERRUPTED' | 'UNKNOWN';

/** Takes up to `limit` queued revisions, oldest first; each comes back AWAITING_BUILD under a lease of ours. */
export const CLAIM_REVISIONS = `mutation ClaimRevisions($input: ClaimRevisionsInput!) {
  claimRevisions(input: $input) {
    leases { leaseId expiresAt tenantId revisionId deploymentId sourceArchiveUrl imagePull { token registry repository reference expiresAt } }
  }
}`;

export interface RevisionLease {
  leaseId: string;
  /** When the lease lapses unless a report renews it (ISO 8601). */
  expiresAt: string;
  tenantId: string;
  revisionId: string;
  deploymentId: string;
  /** A remote build's (internal_source) archive: a signed URL to GET without a key; null for other sources. */
  sourceArchiveUrl: string | null;
  /** An image pushed to the gateway's registry: a pull-only token for it; null for other images and sources. */
  imagePull: ImagePull | null;
}

export interface ClaimRevisionsResult {
  claimRevisions: { leases: RevisionLease[] };
}

/** Moves a revision to `status`; the status it already has again only renews the lease. */
export const REPORT_REVISION_STATUS = `mutation ReportRevisionStatus($input: ReportRevisionStatusInput!) {
  reportRevisionStatus(input: $input) {
    __typename
    ... on ReportRevisionStatusPayload { status applied leaseExpiresAt }
    ... on LeaseLostError { status }
    ... on InvalidTransitionError { from to }
    ... on MutationError { message }
  }
}`;

export type ReportRevisionStatusResult = {
  reportRevisionStatus:
    | { __typename: 'ReportRevisionStatusPayload'; status: RevisionStatus; applied: boolean; leaseExpiresAt: string | null }
    | { __typename: 'LeaseLostError'; status: RevisionStatus; message: string }
    | { __typename: 'InvalidTransitionError'; from: RevisionStatus; to: RevisionStatus; message: string }
    | { __typename: 'RevisionNotFoundError'; message: string };
};

/**
 * Appends log lines, numbered from 0 per revision and phase; lines sent again are stored once. A revision that
 * has ended takes none, and a revision keeps 10,000 lines at most.
 */
export const APPEND_REVISION_LOGS = `mutation AppendRevisionLogs($input: AppendRevisionLogsInput!) {
  appendRevisionLogs(input: $input) {
    __typename
    ... on AppendRevisionLogsPayload { appended nextLine leaseExpiresAt }
    ... on LeaseLostError { status }
    ... on LogLinesOutOfOrderError { expectedLine }
    ... on RevisionEndedError { status }
    ... on RevisionNotRunningError { status }
    ... on LogLineLimitError { limit stored }
    ... on MutationError { message }
  }
}`;

export type LogPhase = 'BUILD' | 'DEPLOY' | 'RUNTIME';

export interface LogLine {
  message: string;
  level: string;
  timestamp: string;
}

export type AppendRevisionLogsResult = {
  appendRevisionLogs:
    | { __typename: 'AppendRevisionLogsPayload'; appended: number; nextLine: number; leaseExpiresAt: string | null }
    | { __typename: 'LeaseLostError'; status: RevisionStatus; message: string }
    | { __typename: 'LogLinesOutOfOrderError'; expectedLine: number; message: string }
    | { __typename: 'RevisionEndedError'; status: RevisionStatus; message: string }
    | { __typename: 'RevisionNotRunningError'; status: RevisionStatus; message: string }
    | { __typename: 'LogLineLimitError'; limit: number; stored: number; message: string }
    | { __typename: 'RevisionNotFoundError'; message: string };
};

/** What the data plane sees of a deployment it runs: its status and where it answers. */
export const REPORT_DEPLOYMENT_STATUS = `mutation ReportDeploymentStatus($input: ReportDeploymentStatusInput!) {
  reportDeploymentStatus(input: $input) {
    __typename
    ... on ReportDeploymentStatusPayload { deploymentId }
    ... on MutationError { message }
  }
}`;

export type ReportDeploymentStatusResult = {
  reportDeploymentStatus:
    | { __typename: 'ReportDeploymentStatusPayload'; deploymentId: string }
    | { __typename: 'DeploymentNotFoundError'; message: string };
};

/**
 * What a remote build's revision says about its source: the config file's path inside the archive (the CLI's
 * `graph_config_path`; null: the default). Sent with X-Tenant-Id: the lease's tenant, since a data plane's key may
 * act for several tenants.
 */
export const REVISION_SOURCE = `query RevisionSource($deploymentId: ID!, $revisionId: ID!) {
  deployment(id: $deploymentId) { revision(id: $revisionId) { sourceRevisionConfig { graphConfigPath } } }
}`;

export interface RevisionSourceResult {
  deployment: { revision: { sourceRevisionConfig: { graphConfigPath: string | null } } | null } | null;
}

/** Every document of this example, for the test that validates them against the schema. */
/** Wakes the data plane when a revision may be claimable by it (its listener's, or on no listener for a key of none). */
export const DATA_PLANE_WAKE_UPS = 'subscription DataPlaneWakeUps { dataPlaneWakeUps { reason tenantId } }';

/** The bound listener's contact and version (`Listener.online`); refused (FORBIDDEN) for a key bound to no listener. */
export const REPORT_LISTENER_HEARTBEAT = `mutation ReportListenerHeartbeat($input: ReportListenerHeartbeatInput!) {
  reportListenerHeartbeat(input: $input) { listenerId version online }
}`;

export interface ReportListenerHeartbeatResult {
  reportListenerHeartbeat: { listenerId: string; version: string | null; online: boolean };
}

export const DOCUMENTS = {
  CLAIM_REVISIONS, REPORT_REVISION_STATUS, APPEND_REVISION_LOGS, REPORT_DEPLOYMENT_STATUS, REVISION_SOURCE, DATA_PLANE_WAKE_UPS, REPORT_LISTENER_HEARTBEAT,
};
