// Imports a document (docs/decisions.md#data-import) in one transaction, streaming: the document is read
// element by element, each element checked with its schema as it arrives and turned into COPY data in batches
// (batch-preparer.ts; on a thread of its own for a large document, preparation-thread.ts); each batch is
// staged with COPY into temporary tables (staging-writer.ts), checked against the database (tenancy-checks.ts,
// batch-checks.ts) and written by set-based statements that change only what differs (apply-tenancy.ts,
// apply-deployments.ts; import-batches.ts says when). Memory stays bounded whatever the document's size; a
// failure anywhere rolls everything back, so a bad document writes nothing.
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
import { prepareDocument, type PreparationStep } from './batch-preparer.ts';
import { ImportBatches } from './import-batches.ts';
import { prepareOnThread } from './preparation-thread.ts';
import { createStagingTables } from './staging-tables.ts';
import { StagingWriter } from './staging-writer.ts';

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

/**
 * A document given as a string shorter than this is prepared on the importer's own thread: starting the
 * preparation thread (about 120 ms) costs more than preparing a megabyte (about 40 ms). A stream is always
 * prepared on the thread.
 */
const THREAD_FROM_LENGTH = 1 << 20;

function preparation(input: DocumentInput, cipher: SecretCipher): AsyncGenerator<PreparationStep> {
  if (typeof input === 'string') return input.length < THREAD_FROM_LENGTH ? prepareDocument([input], cipher) : prepareOnThread([input], cipher);
  return prepareOnThread(input, cipher);
}

/** Stages and writes the document's batches as they are prepared. */
async function streamDocument(writer: StagingWriter, steps: AsyncIterable<PreparationStep>, onRecords: (records: ImportProgress['records']) => void) {
  for await (const step of steps) {
    if ('records' in step) onRecords(step.records);
    else if ('batch' in step) await writer.send(step.batch);
    else {
      // The first offending element in document order: one staged earlier, if any, fails first.
      await writer.finish();
      throw step.invalid;
    }
  }
  await writer.finish();
}

/** Imports the document atomically: on any error nothing is written. */
export async function importDocument(em: EntityManager, input: DocumentInput, cipher: SecretCipher, options: ImportOptions = {}): Promise<ImportSummary> {
  let records: ImportProgress['records'] = { tenants: 0, tags: 0, integrations: 0, deployments: 0 };
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
    await streamDocument(writer, preparation(input, cipher), (read) => {
      records = read;
      report('reading');
    });
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
