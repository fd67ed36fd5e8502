// A test data plane and what the data-plane tests share: queued deployments made through REST, the two doors
// (REST /v2/data-plane and the GraphQL mutations) spoken the same way, and a look at the database's own
// record of status changes (the revision_transition notifications) and of lapsed leases.
import pg from 'pg';
import { expect } from 'vitest';
import type { RunningApp } from './app-server.ts';
import type { TestDatabase } from './test-database.ts';
import type { Answer, CallOptions } from './write-calls.ts';

type Call = (method: string, path: string, options?: CallOptions) => Promise<Answer>;

export interface QueuedDeployment {
  id: string;
  revisionId: string;
}

let made = 0;
/** `count` new deployments of the writer key's tenant, each with one QUEUED revision, made `atOnce` at a time through REST. */
export async function queuedDeployments(call: Call, count: number, { prefix = 'plane', atOnce = 8, key }: { prefix?: string; atOnce?: number; key?: string } = {}): Promise<QueuedDeployment[]> {
  const deployments: QueuedDeployment[] = [];
  const names = Array.from({ length: count }, () => `${prefix}-${++made}-${process.pid}`);
  for (let start = 0; start < names.length; start += atOnce) {
    const answers = await Promise.all(names.slice(start, start + atOnce).map((name) => call('POST', '/v2/deployments', {
      key, body: { name, source: 'external_docker', source_config: {}, source_revision_config: { image_uri: 'nginx:1.27' }, secrets: [] },
    })));
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(201);
      deployments.push({ id: answer.json.id, revisionId: answer.json.latest_revision_id });
    }
  }
  return deployments;
}

export interface Lease {
  revisionId: string;
  deploymentId: string;
  tenantId: string;
  leaseId: string;
}

/** A report's outcome, whichever door: applied or not, or the refusal's GraphQL type name (REST: mapped from status and body). */
export type Outcome = { applied: boolean } | { refused: string; status?: string };

/** What a data plane does, through one door. */
export interface DataPlane {
  claim(limit: number): Promise<Lease[]>;
  report(revisionId: string, leaseId: string, status: string): Promise<Outcome>;
}

export function restPlane(call: Call, key: string, headers: Record<string, string> = {}): DataPlane {
  return {
    async claim(limit) {
      const answer = await call('POST', '/v2/data-plane/claims', { key, headers, body: { limit } });
      expect(answer.status, answer.text).toBe(200);
      return answer.json.leases.map((l: Record<string, string>) => ({ revisionId: l.revision_id, deploymentId: l.deployment_id, tenantId: l.tenant_id, leaseId: l.lease_id }));
    },
    async report(revisionId, leaseId, status) {
      const answer = await call('POST', `/v2/data-plane/revisions/${revisionId}/status`, { key, headers, body: { lease_id: leaseId, status } });
      if (answer.status === 200) return { applied: answer.json.applied };
      if (answer.status === 404) return { refused: 'RevisionNotFoundError' };
      expect(answer.status, answer.text).toBe(409);
      return answer.json.status ? { refused: 'LeaseLostError', status: answer.json.status } : { refused: 'InvalidTransitionError' };
    },
  };
}

export const CLAIM = `mutation Claim($limit: Int!) {
  claimRevisions(input: { limit: $limit }) { leases { revisionId deploymentId tenantId leaseId expiresAt } }
}`;
export const REPORT = `mutation Report($input: ReportRevisionStatusInput!) {
  reportRevisionStatus(input: $input) {
    __typename
    ... on ReportRevisionStatusPayload { revisionId status applied leaseExpiresAt }
    ... on MutationError { message }
    ... on LeaseLostError { status }
    ... on InvalidTransitionError { from to }
  }
}`;
export const APPEND = `mutation Append($input: AppendRevisionLogsInput!) {
  appendRevisionLogs(input: $input) {
    __typename
    ... on AppendRevisionLogsPayload { appended nextLine leaseExpiresAt }
    ... on MutationError { message }
    ... on LeaseLostError { status }
    ... on LogLinesOutOfOrderError { expectedLine }
  }
}`;
export const REPORT_DEPLOYMENT = `mutation ReportDeployment($input: ReportDeploymentStatusInput!) {
  reportDeploymentStatus(input: $input) { __typename ... on ReportDeploymentStatusPayload { deploymentId } ... on MutationError { message } }
}`;

export function graphqlPlane(app: () => RunningApp, key: string, headers: Record<string, string> = {}): DataPlane {
  const send = async (query: string, variables: Record<string, unknown>) => {
    const answer = await app().graphql(query, { 'x-api-key': key, ...headers }, variables);
    expect(answer.body.errors, JSON.stringify(answer.body)).toBeUndefined();
    return answer.body.data;
  };
  return {
    async claim(limit) {
      const data = await send(CLAIM, { limit });
      return data.claimRevisions.leases.map(({ revisionId, deploymentId, tenantId, leaseId }: Record<string, string>) => ({ revisionId, deploymentId, tenantId, leaseId }));
    },
    async report(revisionId, leaseId, status) {
      const result = (await send(REPORT, { input: { revisionId, leaseId, status } })).reportRevisionStatus;
      if (result.__typename === 'ReportRevisionStatusPayload') return { applied: result.applied };
      return result.status ? { refused: result.__typename, status: result.status } : { refused: result.__typename };
    },
  };
}

/** Claims until `revisionId` is among the leases (other queued revisions may come first); its lease id. */
export async function claimThe(plane: DataPlane, revisionId: string): Promise<string> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const leases = await plane.claim(100);
    const lease = leases.find((l) => l.revisionId === revisionId);
    if (lease) return lease.leaseId;
    if (leases.length === 0) break;
  }
  throw new Error(`revision ${revisionId} was not claimed`);
}

/** Waits (no time asserted) until the database's clock is past the leases of these revisions. */
export async function untilLapsed(db: TestDatabase, revisionIds: string[]): Promise<void> {
  for (;;) {
    const [row] = await db.query<{ lapsed: boolean }>(
      'select count(*) = cardinality($1::uuid[]) and bool_and(expires_at < now()) as lapsed from revision_lease where revision_id = any($1::uuid[])', [revisionIds],
    );
    if (row?.lapsed) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The revision's status and message, and its deployment's active revision, as stored. */
export async function storedRevision(db: TestDatabase, revisionId: string): Promise<{ status: string; status_message: string | null; active_revision_id: string | null }> {
  const [row] = await db.query<{ status: string; status_message: string | null; active_revision_id: string | null }>(
    'select r.status, r.status_message, d.active_revision_id from revision r join deployment d on d.id = r.deployment_id where r.id = $1', [revisionId],
  );
  return row!;
}

/**
 * Every status change the database announces (the trigger's NOTIFY on revision_transition; not the creation of
 * a revision), as `<from> <to>` per revision, in order, from a LISTEN connection of its own.
 */
export async function listenToTransitions(db: TestDatabase): Promise<{ of(revisionId: string): string[]; settled(): Promise<void>; close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const seen: string[] = [];
  client.on('notification', (message) => {
    if (message.channel !== 'revision_transition') return;
    const [, , revisionId, from, to] = (message.payload ?? '').split(' ');
    if (from !== '-') seen.push(`${revisionId} ${from} ${to}`);
  });
  await client.query('LISTEN revision_transition');
  return {
    of: (revisionId) => seen.filter((line) => line.startsWith(`${revisionId} `)).map((line) => line.slice(revisionId.length + 1)),
    // A NOTIFY sent after every earlier commit arrives after their notifications: once it is here, they are too.
    async settled() {
      const marker = `settled-${Math.random()}`;
      const arrived = new Promise<void>((resolve) => {
        const onMessage = (message: pg.Notification) => {
          if (message.channel === 'test_settled' && message.payload === marker) {
            client.off('notification', onMessage);
            resolve();
          }
        };
        client.on('notification', onMessage);
      });
      await client.query('LISTEN test_settled');
      await db.query('select pg_notify($1, $2)', ['test_settled', marker]);
      await arrived;
    },
    close: () => client.end(),
  };
}
