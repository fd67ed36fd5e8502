// Conditional requests (issue 44): the REST page of 100 revalidated with the tag of a first answer (every
// answer a 304, nothing executed), and the page read right after a write to its tenant with the last tag seen
// (every answer a 200 carrying the write's new revision). Both are compared with the page served as usual.
// The changed page lives in the dataset's last tenant, whose records have the big tenant's shape: no other
// scenario reads it, and the big tenant keeps exactly the rows `npm run bench:data` loaded.
import { performance } from 'node:perf_hooks';
import type autocannon from 'autocannon';
import type { EntityManager } from '@mikro-orm/postgresql';
import { issueApiKey } from '../src/modules/tenancy/api-key.service.ts';
import { rawRequest } from '../test/support/raw-http.ts';
import { BENCH_TENANTS, tenantId } from './dataset.ts';
import { patchBody } from './write-scenarios.ts';
import type { Scenario } from './scenarios.ts';

/** The dataset's last tenant (bench/dataset.ts): the changed page's writes go there. */
export const CHANGED_PAGE_TENANT = tenantId(BENCH_TENANTS - 1);

export const REVALIDATED_PAGE = 'REST page of 100, revalidated (If-None-Match: its tag, each answer 304)';
export const CHANGED_PAGE = 'REST page of 100 changed by a write before each read (PATCH, then GET with the last tag: 200)';

const PAGE = '/v2/deployments?limit=100';
/** The headers every load request carries (bench/service-load.ts): the tag depends on Accept and Accept-Encoding. */
const loadHeaders = (key: string) => ({ 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json' });

/**
 * What a scenario whose requests depend on a first answer sends, made afresh before each load: autocannon's
 * requests (taking turns on each connection), and what its answers must be.
 */
export interface LoadPlan {
  requests: autocannon.Request[];
  /** One request of every `measuredEvery` is the one measured (a read after its write): its rate is the scenario's. */
  measuredEvery: number;
  /** The measured requests' latencies in ms, when not every request is measured. */
  latencies?: () => number[];
  /** The other requests' (the writes') latencies in ms. */
  otherLatencies?: () => number[];
  /** Answers that were not what the scenario must get (a 200 instead of a 304, a page without the write's data). */
  wrong: () => number;
  /** One request as the statement count sends it, and the status it must get. */
  sample: { method: 'GET'; path: string; headers: Record<string, string>; status: number };
}

interface FirstAnswer {
  etag: string;
  /** The page's deployments the CLI's PATCH may write. */
  ids: string[];
}

async function firstAnswer(baseUrl: string, key: string): Promise<FirstAnswer> {
  const { status, headers, body } = await rawRequest(`${baseUrl}${PAGE}`, { headers: loadHeaders(key) });
  const etag = headers.etag;
  if (status !== 200 || typeof etag !== 'string') throw new Error(`the page's first answer: HTTP ${status}, ETag ${etag}`);
  const { resources } = JSON.parse(body.toString()) as { resources: { id: string; source: string }[] };
  // The CLI's PATCH (bench/write-scenarios.ts) builds an internal_docker revision: a quarter of the dataset's.
  const ids = resources.filter((r) => r.source === 'internal_docker').map((r) => r.id);
  if (!ids.length) throw new Error('the page has no internal_docker deployment to PATCH');
  return { etag, ids };
}

/** The ETag of an answer autocannon read (its header names as the service sent them). */
const etagOf = (headers: autocannon.Request['headers']) =>
  Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'etag')?.[1] as string | undefined;

interface PairContext { staleTag?: string; revision?: string; sentAt: number }

/** The two scenarios, both compared with `page` (the page served as usual, with the masked key). */
export function conditionalScenarios(page: string): Scenario[] {
  const revalidated: Scenario = {
    name: REVALIDATED_PAGE, target: 'service', method: 'GET', path: PAGE, ceiling: page,
    plan: async (baseUrl, key) => {
      const { etag } = await firstAnswer(baseUrl, key);
      let wrong = 0;
      return {
        requests: [{ method: 'GET', path: PAGE, headers: { 'if-none-match': etag }, onResponse: (status) => { if (status !== 304) wrong++; } }],
        measuredEvery: 1, wrong: () => wrong,
        sample: { method: 'GET', path: PAGE, headers: { ...loadHeaders(key), 'if-none-match': etag }, status: 304 },
      };
    },
  };
  const changed: Scenario = {
    name: CHANGED_PAGE, target: 'service', method: 'GET', path: PAGE, ceiling: page, changesPage: true,
    plan: async (baseUrl, key) => {
      const { etag, ids } = await firstAnswer(baseUrl, key);
      // The last tag any read got: it was issued before the next write is sent, so that write's commit must
      // make it stale. The writes go round the page's deployments (two seldom wait for one row's lock; the
      // PATCH does not move one off the page, which is ordered by creation).
      let lastTag = etag;
      let written = 0;
      let wrong = 0;
      const reads: number[] = [];
      const writes: number[] = [];
      const write: autocannon.Request = {
        method: 'PATCH',
        setupRequest: (request, context) => {
          const pair = context as PairContext;
          pair.staleTag = lastTag;
          pair.sentAt = performance.now();
          written++;
          return { ...request, path: `/v2/deployments/${ids[written % ids.length]}`, body: JSON.stringify(patchBody(written)) };
        },
        onResponse: (status, body, context) => {
          const pair = context as PairContext;
          writes.push(performance.now() - pair.sentAt);
          pair.revision = status === 200 ? (JSON.parse(body) as { latest_revision_id: string }).latest_revision_id : undefined;
          if (status !== 200) wrong++;
        },
      };
      const read: autocannon.Request = {
        method: 'GET', path: PAGE,
        setupRequest: (request, context) => {
          const pair = context as PairContext;
          pair.sentAt = performance.now();
          return { ...request, headers: { ...request.headers, 'if-none-match': pair.staleTag! } };
        },
        onResponse: (status, body, context, headers) => {
          const pair = context as PairContext;
          reads.push(performance.now() - pair.sentAt);
          const tag = etagOf(headers);
          // A 200 with a new tag, showing the revision its write just made.
          if (status !== 200 || !tag || tag === pair.staleTag || !pair.revision || !body.includes(pair.revision)) wrong++;
          if (tag) lastTag = tag;
        },
      };
      return {
        requests: [write, read], measuredEvery: 2, latencies: () => reads, otherLatencies: () => writes, wrong: () => wrong,
        // Counted as the read after a write executes: with a tag that is no longer the page's.
        sample: { method: 'GET', path: PAGE, headers: { ...loadHeaders(key), 'if-none-match': '"0123456789abcdef01234567"' }, status: 200 },
      };
    },
  };
  return [revalidated, changed];
}

/** A key of the changed page's tenant that may write (values masked, as the page it is compared with). */
export async function issueChangedPageKey(em: EntityManager): Promise<string> {
  return (await issueApiKey(em.fork(), { tenantIds: [CHANGED_PAGE_TENANT], name: 'bench-changed-page', mayReadSecrets: false, mayWrite: true })).key;
}
