// Imports a document (docs/decisions.md#data-import) in one transaction, streaming: the document is read
// element by element (document-reader.ts), each element checked with its schema as it arrives
// (validate-record.ts) and staged with COPY into temporary tables in batches (staging-writer.ts); each batch is
// checked against the database (tenancy-checks.ts, batch-checks.ts) and written by set-based statements that
// change only what differs (apply-tenancy.ts, apply-deployments.ts; import-batches.ts says when). Memory stays
// bounded whatever the document's size; a failure anywhere rolls everything back, so a bad document writes
// nothing.
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
import type { ChangeCounts } from './apply-tenancy.ts';
import type { SectionName } from './document.schema.ts';
import { readDocument } from './document-reader.ts';
import { ImportBatches } from './import-batches.ts';
import { ImportError } from './import-error.ts';
import { createStagingTables } from './staging-tables.ts';
import { StagingWriter } from './staging-writer.ts';
import { validateRecord } from './validate-record.ts';

export type ImportSummary = ChangeCounts;

/** The document's text: a whole string, or its bytes in chunks (a file's read stream). */
export type DocumentInput = string | AsyncIterable<Buffer | string>;

export interface ImportProgress {
  /** Reading the document (each batch is checked and written as it fills), what waited for the end of it, done. */
  phase: 'reading' | 'finishing' | 'done';
  /** Elements read so far, per list. */
  records: Record<SectionName, number>;
}

export interface ImportOptions {
  /** Called as the import goes (every thousand elements read, and at each phase). */
  onProgress?: (progress: ImportProgress) => void;
}

const PROGRESS_EVERY = 1000;

/**
 * Settings of the import's transaction (SET LOCAL: they end with it). Each batch runs a few dozen statements over
 * a few thousand rows, and compiling them (PostgreSQL's JIT, on when a statement's estimated cost is high) took
 * longer than running them. A deployment's resource spec is compressed when stored; lz4 (PostgreSQL 14 and later,
 * when built with it) halved the time of writing a deployment against pglz, the default. A server configured
 * for one or the other keeps its choice; values are read back the same whichever compressed them.
 */
async function sessionSettings(client: pg.ClientBase): Promise<string[]> {
  const { rows: [compression] } = await client.query<{ lz4: boolean; configured: boolean }>(
    `select 'lz4' = any(enumvals) as lz4, source <> 'default' as configured from pg_settings where name = 'default_toast_compression'`);
  const lz4 = compression && compression.lz4 && !compression.configured;
  return ['set local jit = off', ...(lz4 ? [`set local default_toast_compression = 'lz4'`] : [])];
}

/** Reads, checks and stages the document; batches are checked and written as they fill (import-batches.ts). */
async function streamDocument(writer: StagingWriter, input: DocumentInput, report: (phase: ImportProgress['phase']) => void, records: ImportProgress['records']) {
  let read = 0;
  for await (const record of readDocument(typeof input === 'string' ? [input] : input)) {
    let valid;
    try {
      valid = validateRecord(record);
    } catch (error) {
      // The first offending element in document order: one staged earlier, if any, fails first.
      if (error instanceof ImportError) await writer.finish();
      throw error;
    }
    await writer.add(valid);
    records[record.section]++;
    if (++read % PROGRESS_EVERY === 0) report('reading');
  }
  await writer.finish();
}

/** Imports the document atomically: on any error nothing is written. */
export async function importDocument(em: EntityManager, input: DocumentInput, cipher: SecretCipher, options: ImportOptions = {}): Promise<ImportSummary> {
  const records: ImportProgress['records'] = { tenants: 0, tags: 0, integrations: 0, deployments: 0 };
  const report = (phase: ImportProgress['phase']) => options.onProgress?.({ phase, records: { ...records } });
  const pool = await em.getConnection().getNativeClient();
  const client = await pool.connect();
  const batches = new ImportBatches(client, new Date());
  const writer = new StagingWriter(client, cipher, batches);
  let broken: Error | undefined;
  try {
    await client.query('begin');
    for (const sql of await sessionSettings(client)) await client.query(sql);
    for (const sql of createStagingTables()) await client.query(sql);
    report('reading');
    await streamDocument(writer, input, report, records);
    report('finishing');
    await batches.finish();
    await client.query('commit');
    report('done');
    return batches.summary;
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
