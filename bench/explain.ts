// npm run bench:explain: the query plans of the listing's page queries on the benchmark dataset, as the
// README quotes them (the SQL is what the gateway's QueryBuilder generates for those pages).
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { benchEnvironment } from './bench-environment.ts';
import { benchIds, tenantId } from './dataset.ts';

Object.assign(process.env, benchEnvironment());
const database = await openDatabase(loadConfig(), { migrate: true, whenRunning: 'join' });
const client = new pg.Client({ connectionString: database.clientUrl });
await client.connect();
const page = 'select "e".* from "deployment" as "e" where "e"."tenant_id" = $1 and';
const order = 'order by "e"."created_at" desc, "e"."id" desc limit 101';
const [a, b, c] = benchIds().tagValues;
const exists = (values: string) => `exists (select 1 from deployment_tag_value as dtv where dtv.deployment_id = e.id and dtv.tag_value_id in (${values}))`;
const plans: [string, string, unknown[]][] = [
  ['name_contains=agent-4 (first page)', `${page} "e"."name" ilike $2 ${order}`, [tenantId(0), '%agent-4%']],
  ['name_contains=agent-49 (rare)', `${page} "e"."name" ilike $2 ${order}`, [tenantId(0), '%agent-49%']],
  ['deep page, offset 40,000', `${page} true ${order} offset 40000`, [tenantId(0)]],
  ['two tag keys', `${page} ${exists('$2, $3')} = true and ${exists('$4')} = true ${order}`, [tenantId(0), a, b, c]],
];
try {
  for (const [title, sql, params] of plans) {
    const { rows } = await client.query(`explain (analyze, buffers, costs off) ${sql}`, params);
    console.log(`-- ${title}\n${rows.map((row) => row['QUERY PLAN']).join('\n')}\n`);
  }
} finally {
  await client.end();
  await database.close();
}
