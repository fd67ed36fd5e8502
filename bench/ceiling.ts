// The ceiling: what serving GET /v2/deployments costs with nothing but `pg` and JSON.stringify. The same
// page's SQL (the page, then its secrets and secret references together), no ORM, no GraphQL, no validation.
// Usage: node bench/ceiling.ts <database-url> <tenant-id>   (prints "listening <port>")
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

const [databaseUrl, tenantId] = process.argv.slice(2);
if (!databaseUrl || !tenantId) throw new Error('usage: node bench/ceiling.ts <database-url> <tenant-id>');
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });

async function page(limit: number, offset: number): Promise<string> {
  const { rows } = await pool.query(
    'select * from deployment where tenant_id = $1 order by created_at desc, id desc limit $2 offset $3',
    [tenantId, limit, offset],
  );
  const ids = rows.map((row) => row.id);
  // Secrets and secret references in one statement, as the gateway reads them (src/modules/deployments/
  // secret-listing.ts); only what the legacy JSON shows.
  const { rows: secrets } = await pool.query(
    `select deployment_id, false as is_reference, position, name, null::text as secret_name, null::text as secret_key
       from secret where tenant_id = $1 and deployment_id = any($2)
     union all
     select deployment_id, true, position, name, secret_name, secret_key
       from secret_reference where tenant_id = $1 and deployment_id = any($2)
     order by is_reference, position`,
    [tenantId, ids],
  );
  return JSON.stringify({ resources: rows, secrets, offset: offset + rows.length });
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://ceiling');
  const limit = Number(url.searchParams.get('limit') ?? 20);
  const offset = Number(url.searchParams.get('offset') ?? 0);
  page(limit, offset).then(
    (body) => response.writeHead(200, { 'content-type': 'application/json' }).end(body),
    (error: Error) => response.writeHead(500).end(error.message),
  );
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
