// Listeners and their data planes for the tests of issue 53: listeners made through REST, keys bound to them,
// deployments queued on them, and a data plane that waits on `dataPlaneWakeUps` and claims until nothing is
// left each time it is woken (what examples/data-plane does).
import { expect } from 'vitest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { issueApiKey } from '../../src/modules/tenancy/api-key.service.ts';
import { subscribe, type EventStream } from './event-stream.ts';
import type { Answer, CallOptions } from './write-calls.ts';

type Call = (method: string, path: string, options?: CallOptions) => Promise<Answer>;

export const WAKE_UPS = 'subscription { dataPlaneWakeUps { reason tenantId } }';

let made = 0;

/** A new listener of the writer key's tenant serving `namespaces`; its id. */
export async function newListener(call: Call, key: string, namespaces: string[] = ['apps']): Promise<string> {
  const answer = await call('POST', '/v2/listeners', { key, body: { compute_type: 'k8s', compute_id: `cluster-${++made}-${process.pid}`, compute_config: { k8s_namespaces: namespaces } } });
  expect(answer.status, answer.text).toBe(201);
  return answer.json.id;
}

/** A data plane's key, bound to `listenerId` (or to none). */
export async function planeKey(em: EntityManager, tenantIds: string[], listenerId: string | null): Promise<string> {
  return (await issueApiKey(em.fork(), { tenantIds, name: 'plane', mayReadSecrets: false, mayReconcile: true, listenerId })).key;
}

/** `count` deployments on the listener (or on none), each with a QUEUED revision; their revision ids. */
export async function queuedOn(call: Call, key: string, listenerId: string | null, count: number, atOnce = 8): Promise<string[]> {
  const revisions: string[] = [];
  for (let start = 0; start < count; start += atOnce) {
    const answers = await Promise.all(Array.from({ length: Math.min(atOnce, count - start) }, () => call('POST', '/v2/deployments', {
      key,
      body: {
        name: `work-${++made}-${process.pid}`, source: 'external_docker', secrets: [],
        source_config: listenerId === null ? {} : { listener_id: listenerId, listener_config: { k8s_namespace: 'apps' } },
        source_revision_config: { image_uri: 'nginx:1.27' },
      },
    })));
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(201);
      revisions.push(answer.json.latest_revision_id);
    }
  }
  return revisions;
}

export interface Claimed {
  revisionId: string;
  leaseId: string;
}

/** Claims (REST) until a claim takes nothing; every lease taken. */
export async function claimAll(call: Call, key: string): Promise<Claimed[]> {
  const claimed: Claimed[] = [];
  for (;;) {
    const answer = await call('POST', '/v2/data-plane/claims', { key, body: { limit: 100 } });
    expect(answer.status, answer.text).toBe(200);
    const leases = answer.json.leases as { revision_id: string; lease_id: string }[];
    if (leases.length === 0) return claimed;
    claimed.push(...leases.map((lease) => ({ revisionId: lease.revision_id, leaseId: lease.lease_id })));
  }
}

/** The data plane's wake-up stream, its first event (SUBSCRIBED) taken. */
export async function wakeUps(url: string, key: string): Promise<EventStream> {
  const stream = await subscribe(url, key, WAKE_UPS);
  expect(stream.status).toBe(200);
  expect((await stream.nextResult()).data.dataPlaneWakeUps).toEqual({ reason: 'SUBSCRIBED', tenantId: null });
  return stream;
}

/**
 * A data plane at work: woken, it claims until nothing is left and reports each revision built (DEPLOYED),
 * until it has built `expected` revisions; what it built, in order.
 */
export async function buildWhenWoken(call: Call, stream: EventStream, key: string, expected: number): Promise<string[]> {
  const built: string[] = [];
  while (built.length < expected) {
    const claimed = await claimAll(call, key);
    for (const { revisionId, leaseId } of claimed) {
      const report = await call('POST', `/v2/data-plane/revisions/${revisionId}/status`, { key, body: { lease_id: leaseId, status: 'DEPLOYED' } });
      expect(report.status, report.text).toBe(200);
      built.push(revisionId);
    }
    if (built.length < expected) await stream.nextResult();
  }
  return built;
}
