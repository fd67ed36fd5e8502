// Imports a document (docs/decisions.md#data-import) in one transaction, streaming: the document is read
// element by element (document-reader.ts), each element checked with its schema as it arrives
// (validate-record.ts) and staged with COPY into temporary tables (staging-writer.ts); then the checks that
// need the whole document or the database run on the staged rows (import-checks.ts), and set-based statements
// write what differs (apply-tenancy.ts, apply-deployments.ts). Memory stays bounded whatever the document's
// size; a failure anywhere rolls everything back, so a bad document writes nothing.
//
// Rows are matched by id (tag keys by tenant and key, repositories by integration and code-host id) and
// changed only where the document differs, so importing the same file twice changes nothing. Lists a record
// owns (an integration's repositories, a deployment's secrets, secret references and tags) are replaced by
// what the document lists. The import spans tenants: it refuses any record that would move or reach into
// another tenant's rows, and every write also requires the stored row's tenant to be the document's.
//
// It runs on one connection of the ORM's pool, outside the ORM's unit of work: COPY and set-based statements
// from staging tables are not something the ORM builds (see the files above for each statement's reason).
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { SecretCipher } from '../modules/secrets/secret-cipher.ts';
import { applyDeployments } from './apply-deployments.ts';
import { addCounts, noChanges, type ChangeCounts } from './apply-tenancy.ts';
import { applyTenancy } from './apply-tenancy.ts';
import type { SectionName } from './document.schema.ts';
import { readDocument } from './document-reader.ts';
import { checkStagedDocument } from './import-checks.ts';
import { createStagingTables } from './staging-tables.ts';
import { StagingWriter } from './staging-writer.ts';
import { validateRecord } from './validate-record.ts';

export type ImportSummary = ChangeCounts;

/** The document's text: a whole string, or its bytes in chunks (a file's read stream). */
export type DocumentInput = string | AsyncIterable<Buffer | string>;

export interface ImportProgress {
  /** Reading the document (and staging it), checking it, writing the changes, done. */
  phase: 'reading' | 'checking' | 'writing' | 'done';
  /** Elements read so far, per list. */
  records: Record<SectionName, number>;
}

export interface ImportOptions {
  /** Called as the import goes (every thousand elements read, and at each phase). */
  onProgress?: (progress: ImportProgress) => void;
}

const PROGRESS_EVERY = 1000;

async function stageDocument(writer: StagingWriter, client: pg.ClientBase, input: DocumentInput, report: (phase: ImportProgress['phase']) => void, records: ImportProgress['records']) {
  let read = 0;
  for await (const record of readDocument(typeof input === 'string' ? [input] : input)) {
    await writer.add(validateRecord(record));
    records[record.section]++;
    if (++read % PROGRESS_EVERY === 0) report('reading');
  }
  await writer.finish();
  // Temporary tables get no statistics from autovacuum; the checks and writes join them with large tables.
  await client.query('analyze import_tenant, import_tag, import_tag_value, import_integration, import_repository, import_deployment, import_secret, import_secret_reference, import_tag_link, import_revision');
}

/** Imports the document atomically: on any error nothing is written. */
export async function importDocument(em: EntityManager, input: DocumentInput, cipher: SecretCipher, options: ImportOptions = {}): Promise<ImportSummary> {
  const records: ImportProgress['records'] = { tenants: 0, tags: 0, integrations: 0, deployments: 0 };
  const report = (phase: ImportProgress['phase']) => options.onProgress?.({ phase, records: { ...records } });
  const pool = await em.getConnection().getNativeClient();
  const client = await pool.connect();
  const writer = new StagingWriter(client, cipher);
  let broken: Error | undefined;
  try {
    await client.query('begin');
    for (const sql of createStagingTables()) await client.query(sql);
    report('reading');
    await stageDocument(writer, client, input, report, records);
    report('checking');
    await checkStagedDocument(client);
    report('writing');
    const now = new Date();
    const summary = noChanges();
    addCounts(summary, await applyTenancy(client, now));
    addCounts(summary, await applyDeployments(client, now));
    await client.query('commit');
    report('done');
    return summary;
  } catch (error) {
    try {
      await writer.settle();
      await client.query('rollback');
    } catch (rollbackError) {
      broken = rollbackError as Error; // the connection is unusable: the pool must not hand it out again
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
