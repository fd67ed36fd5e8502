// What happens to the staged rows (staging-tables.ts) as the document streams in: the staged tenancy is
// checked and written before each batch of deployments that follows it (if every tenant it names is known:
// otherwise the document may declare it further on, and it waits for the end), each batch of deployments is
// checked, written and emptied, and deployments whose tenant or tag values are not stored yet wait for the
// end too. So the writes of one batch overlap the reading of the next, and a document in the usual order
// (tenants, tags, integrations, deployments) is written as it is read; any order is imported correctly.
//
// Hand-written SQL: statements over temporary tables (see tenancy-checks.ts).
import type pg from 'pg';
import { applyDeployments } from './apply-deployments.ts';
import { addCounts, applyTenancy, noChanges, type ChangeCounts } from './apply-tenancy.ts';
import { batchProblems, INTEGRATION_REFERENCES, UNRESOLVED_DEPLOYMENTS } from './batch-checks.ts';
import { DEPLOYMENT_TABLE_NAMES, deferredTable, TENANCY_TABLE_NAMES } from './staging-tables.ts';
import { checkStagedTenancy, tenancyResolves, throwFirstProblem } from './tenancy-checks.ts';

const ownerColumn = (table: string) => (table === 'import_deployment' ? 'id' : 'deployment_id');

export class ImportBatches {
  readonly summary: ChangeCounts = noChanges();
  readonly #client: pg.ClientBase;
  readonly #now: Date;
  #tenancyPending = false;
  #deferred = false;
  #analysed = false;

  constructor(client: pg.ClientBase, now: Date) {
    this.#client = client;
    this.#now = now;
  }

  /** Tenancy rows were staged. */
  tenancyStaged(): void {
    this.#tenancyPending = true;
  }

  /** Checks and writes the batch of deployments just staged (and the tenancy staged before it). */
  async deploymentBatch(): Promise<void> {
    if (this.#tenancyPending) await this.#applyTenancy('first');
    const client = this.#client;
    await this.#analyseOnce();
    await throwFirstProblem(client, batchProblems('first'));
    await client.query('insert into import_seen_deployment select position, id, tenant_id, integration_id from import_deployment');
    await client.query('insert into import_seen_revision select deployment_position, position, id from import_revision');
    await this.#deferUnresolved();
    await this.#apply();
  }

  /** Once the whole document is read: what waited, then the checks that need every deployment. */
  async finish(): Promise<void> {
    if (this.#tenancyPending) await this.#applyTenancy('final');
    if (this.#deferred) {
      for (const table of DEPLOYMENT_TABLE_NAMES) {
        await this.#client.query(`insert into ${table} select * from ${deferredTable(table)}`);
      }
      this.#analysed = false;
      await this.#analyseOnce();
      await throwFirstProblem(this.#client, batchProblems('final'));
      await this.#apply();
    }
    await throwFirstProblem(this.#client, INTEGRATION_REFERENCES);
  }

  /**
   * Temporary tables get no statistics from autovacuum. One batch looks like the next (and the planner scales
   * the statistics to each table's size when it plans), so the first batch is analysed, and the deferred rows.
   */
  async #analyseOnce(): Promise<void> {
    if (this.#analysed) return;
    await this.#client.query(`analyze ${DEPLOYMENT_TABLE_NAMES.join(', ')}`);
    this.#analysed = true;
  }

  async #applyTenancy(pass: 'first' | 'final'): Promise<void> {
    if (pass === 'first' && !(await tenancyResolves(this.#client))) return;
    await checkStagedTenancy(this.#client);
    addCounts(this.summary, await applyTenancy(this.#client, this.#now));
    await this.#client.query(`truncate ${TENANCY_TABLE_NAMES.join(', ')}`);
    this.#tenancyPending = false;
  }

  async #deferUnresolved(): Promise<void> {
    const client = this.#client;
    if (!(await client.query(`insert into import_unresolved_deployment ${UNRESOLVED_DEPLOYMENTS}`)).rowCount) return;
    this.#deferred = true;
    for (const table of DEPLOYMENT_TABLE_NAMES) {
      await client.query(`with moved as (
          delete from ${table} where ${ownerColumn(table)} in (select id from import_unresolved_deployment) returning *
        ) insert into ${deferredTable(table)} select * from moved`);
    }
    await client.query('truncate import_unresolved_deployment');
  }

  async #apply(): Promise<void> {
    addCounts(this.summary, await applyDeployments(this.#client, this.#now));
    await this.#client.query(`truncate ${[...DEPLOYMENT_TABLE_NAMES, 'import_existing_deployment', 'import_changed_deployment'].join(', ')}`);
  }
}
