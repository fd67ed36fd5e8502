// The demo tenant (plus the shared ACME/GLOBEX fixture and a few deployments with LIKE metacharacters in
// their names) behind a running app, with keys for every authentication case and a small REST client.
import { buildDemoDocument, DEMO_TENANT_ID } from '../../src/demo/demo-dataset.ts';
import { importDocument } from '../../src/import/importer.ts';
import { startApp, type RunningApp } from './app-server.ts';
import { extraDeployment, type DemoDocument, type DocDeployment } from './deployment-oracle.ts';
import { ACME, importFixture, issueKey, newCipher } from './fixtures.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

export interface RestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The JSON body; integers beyond Number.MAX_SAFE_INTEGER are read exactly, as bigint. */
  body: any;
}

export interface RestDemo {
  app: RunningApp;
  doc: DemoDocument;
  /** Every deployment of the demo tenant (the demo's and the extras). */
  deployments: DocDeployment[];
  keys: { plain: string; secrets: string; acme: string; acmeAndDemo: string };
  get(pathAndQuery: string, headers?: Record<string, string>): Promise<RestResponse>;
  close(): Promise<void>;
}

type SourceReviver = (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;

/** JSON.parse that keeps big integers exact (Node 24 hands the reviver the number's source text). */
export function parseExactJson(text: string): unknown {
  const reviver: SourceReviver = (_key, value, context) =>
    (typeof value === 'number' && !Number.isSafeInteger(value) && context?.source && /^-?\d+$/.test(context.source)
      ? BigInt(context.source) : value);
  return (JSON.parse as (text: string, reviver: SourceReviver) => unknown)(text, reviver);
}

const at = (iso: string, deltaMs: number) => new Date(Date.parse(iso) + deltaMs).toISOString();

export async function startRestDemo(): Promise<RestDemo> {
  const db: TestDatabase = await createTestDatabase();
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  const doc = buildDemoDocument();
  const tie = doc.deployments[30]!.created_at;
  const extras = [
    extraDeployment(doc.deployments[1]!, '0f000000-0000-4000-8000-000000000001', 'Lit-A%B', tie),
    extraDeployment(doc.deployments[2]!, 'f0000000-0000-4000-8000-000000000002', 'lit-a_b', tie),
    extraDeployment(doc.deployments[3]!, '70000000-0000-4000-8000-000000000003', 'LIT-AXB', at(tie, 1)),
    extraDeployment(doc.deployments[4]!, '7fffffff-ffff-4fff-bfff-ffffffffffff', 'lit-a\\b', at(tie, -1)),
  ];
  extras[0]!.remote_reconciled = true;
  extras[1]!.tag_value_ids = [doc.tags[0]!.values[0]!.id];
  await importDocument(db.orm.em.fork(), JSON.stringify({ ...doc, deployments: [...doc.deployments, ...extras] }), cipher);
  const keys = {
    plain: await issueKey(db.orm.em, [DEMO_TENANT_ID]),
    secrets: await issueKey(db.orm.em, [DEMO_TENANT_ID], true),
    acme: await issueKey(db.orm.em, [ACME]),
    acmeAndDemo: await issueKey(db.orm.em, [ACME, DEMO_TENANT_ID]),
  };
  const app = await startApp(db.orm, cipher);
  return {
    app,
    doc,
    deployments: [...doc.deployments, ...extras],
    keys,
    async get(pathAndQuery, headers = { 'X-Api-Key': keys.plain }) {
      const response = await fetch(`${app.url}${pathAndQuery}`, { headers });
      const text = await response.text();
      let body: unknown;
      try {
        body = parseExactJson(text);
      } catch {
        body = undefined;
      }
      return { status: response.status, headers: response.headers, text, body };
    },
    async close() {
      await app.close();
      await db.drop();
    },
  };
}
