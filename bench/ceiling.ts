// The ceilings: what each request costs with nothing but `node:http`, `pg` and JSON.stringify. No ORM, no
// GraphQL, no validation, no auth, no logs.
//   /floor                  a fixed small JSON: what a trivial request costs at best (`{ __typename }`)
//   /light?limit=20         the 3 columns of 20 rows (`uuid name status`), stringified
//   /v2/deployments?limit=  the full page: the page's SQL as the gateway runs it (the page, then its secrets
//                           and secret references together), stringified
//   /json-agg?limit=        the same full page with PostgreSQL building the JSON (json_agg); Node passes it on
//   /__bytes                bytes the pool has read from PostgreSQL so far (for bytes per request)
//   POST /v2/deployments, PATCH /v2/deployments/{id}: the writes (bench/ceiling-writes.ts), in <writes-tenant-id>,
//                           with the service's secrets key (base64 in CEILING_SECRETS_KEY, its fingerprint in
//                           CEILING_KEY_FINGERPRINT)
// Usage: node bench/ceiling.ts <database-url> <tenant-id> [<writes-tenant-id>]   (prints "listening <port>")
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import pg from 'pg';
import { writeCeilings } from './ceiling-writes.ts';

const [databaseUrl, tenantId, writesTenantId] = process.argv.slice(2);
if (!databaseUrl || !tenantId) throw new Error('usage: node bench/ceiling.ts <database-url> <tenant-id> [<writes-tenant-id>]');
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
const writes = writesTenantId
  ? writeCeilings(pool, writesTenantId, Buffer.from(process.env.CEILING_SECRETS_KEY ?? '', 'base64'), process.env.CEILING_KEY_FINGERPRINT ?? '')
  : undefined;
const sockets = new Set<Socket>();
pool.on('connect', (client) => sockets.add((client as unknown as { connection: { stream: Socket } }).connection.stream));
const bytesRead = () => [...sockets].reduce((sum, socket) => sum + socket.bytesRead, 0);

const PAGE = 'select * from deployment where tenant_id = $1 order by created_at desc, id desc limit $2 offset $3';
// Secrets and secret references in one statement, as the gateway reads them (src/modules/deployments/
// secret-listing.ts); only what the legacy JSON shows.
const SECRETS = `select deployment_id, false as is_reference, position, name, null::text as secret_name, null::text as secret_key
    from secret where tenant_id = $1 and deployment_id = any($2)
  union all
  select deployment_id, true, position, name, secret_name, secret_key
    from secret_reference where tenant_id = $1 and deployment_id = any($2)
  order by is_reference, position`;

async function fullPage(limit: number, offset: number): Promise<string> {
  const { rows } = await pool.query(PAGE, [tenantId, limit, offset]);
  const { rows: secrets } = await pool.query(SECRETS, [tenantId, rows.map((row) => row.id)]);
  return JSON.stringify({ resources: rows, secrets, offset: offset + rows.length });
}

async function lightPage(limit: number): Promise<string> {
  const { rows } = await pool.query('select id, name, status from deployment where tenant_id = $1 order by created_at desc, id desc limit $2', [tenantId, limit]);
  return JSON.stringify({ data: { deployments: { resources: rows } } });
}

// The full page in one statement, its JSON made by PostgreSQL.
const JSON_AGG = `
  with page as (${PAGE}),
       listed as (
         select deployment_id, false as is_reference, position, name, null::text as secret_name, null::text as secret_key
           from secret where tenant_id = $1 and deployment_id in (select id from page)
         union all
         select deployment_id, true, position, name, secret_name, secret_key
           from secret_reference where tenant_id = $1 and deployment_id in (select id from page))
  select json_build_object(
    'resources', coalesce((select json_agg(p order by p.created_at desc, p.id desc) from page p), '[]'),
    'secrets', coalesce((select json_agg(l order by l.is_reference, l.position) from listed l), '[]'),
    'offset', $3::int + (select count(*) from page))::text as body`;

async function jsonAggPage(limit: number, offset: number): Promise<string> {
  const { rows } = await pool.query(JSON_AGG, [tenantId, limit, offset]);
  return rows[0].body as string;
}

const FLOOR = JSON.stringify({ data: { __typename: 'Query' } });

async function jsonBody(request: IncomingMessage): Promise<never> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as never;
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://ceiling');
  const limit = Number(url.searchParams.get('limit') ?? 20);
  const offset = Number(url.searchParams.get('offset') ?? 0);
  const answer = (body: Promise<string> | string) => Promise.resolve(body).then(
    (text) => response.writeHead(200, { 'content-type': 'application/json' }).end(text),
    (error: Error) => response.writeHead(500).end(error.message),
  );
  if (writes && request.method === 'POST' && url.pathname === '/v2/deployments') return void answer(jsonBody(request).then(writes.create));
  if (writes && request.method === 'PATCH') return void answer(jsonBody(request).then((body) => writes.patch(url.pathname.split('/').at(-1)!, body)));
  switch (url.pathname) {
    case '/floor': return void answer(FLOOR);
    case '/light': return void answer(lightPage(limit));
    case '/json-agg': return void answer(jsonAggPage(limit, offset));
    case '/__bytes': return void answer(String(bytesRead()));
    default: return void answer(fullPage(limit, offset));
  }
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
