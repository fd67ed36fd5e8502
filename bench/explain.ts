// npm run bench:explain: the query plans of the listing's page queries on the benchmark dataset, as the
// docs/performance.md#query-plans sums them up (the SQL is what the gateway's QueryBuilder generates for those pages).
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { entities } from '../src/modules/entities.ts';
import { benchEnvironment } from './bench-environment.ts';
import { benchIds, tenantId } from './dataset.ts';

Object.assign(process.env, benchEnvironment());
const database = await openDatabase(loadConfig(), { entities, migrate: true, whenRunning: 'join' });
const client = new pg.Client({ connectionString: database.clientUrl });
await client.connect();
const page = 'select "e".* from "deployment" as "e" where "e"."tenant_id" = $1 and';
const order = 'order by "e"."created_at" desc, "e"."id" desc limit 101';
const [a, b, c] = benchIds().tagValues;
const exists = (values: string) => `exists (select 1 from deployment_tag_value as dtv where dtv.deployment_id = e.id and dtv.tag_value_id in (${values}))`;
// The first page's secrets and secret references, as src/modules/deployments/secret-listing.ts reads them: on
// a database nobody has analysed, the planner used to filter the whole tenant's secrets here.
const { rows: firstPage } = await client.query(`${page} true ${order}`, [tenantId(0)]);
const pageIds = firstPage.slice(0, 100).map((row) => row.id as string);
const idList = pageIds.map((_, i) => `$${i + 2}`).join(', ');
const secrets = `select deployment_id, false as is_reference, position, name, null::text as secret_name, null::text as secret_key
    from secret where tenant_id = $1 and deployment_id in (${idList})
  union all
  select deployment_id, true, position, name, secret_name, secret_key from secret_reference where tenant_id = $1 and deployment_id in (${idList})
  order by is_reference, position`;
const plans: [string, string, unknown[]][] = [
  ['secrets and secret references of the first page of 100', secrets, [tenantId(0), ...pageIds]],
  ['name_contains=agent-4 (first page)', `${page} "e"."name" ilike $2 ${order}`, [tenantId(0), '%agent-4%']],
  ['name_contains=agent-49 (rare)', `${page} "e"."name" ilike $2 ${order}`, [tenantId(0), '%agent-49%']],
  ['deep page, offset 40,000', `${page} true ${order} offset 40000`, [tenantId(0)]],
  ['two tag keys', `${page} ${exists('$2, $3')} = true and ${exists('$4')} = true ${order}`, [tenantId(0), a, b, c]],
];
try {
  for (const [title, sql, params] of plans) {
    const { rows } = await client.query(`explain (analyze, buffers, costs off) ${sql}`, params);
    // A list of ids is shown by its length, not its 100 UUIDs.
    const shown = rows.map((row) => String(row['QUERY PLAN']).replace(/'\{[^}]{200,}\}'/g, (list) => `'{…${list.split(',').length} ids…}'`));
    console.log(`-- ${title}\n${shown.join('\n')}\n`);
  }
} finally {
  await client.end();
  await database.close();
}
