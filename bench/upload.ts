// Source uploads through the built-in object store (issue 51, Measure), a group of `npm run bench` (run.ts):
//
// One archive of `megabytes` MiB of random bytes (incompressible, as a .tar.gz is), written once to a file under
// DATA_DIR/.bench-upload/, beside DATA_DIR/objects (the same file system). Then, `rounds` times:
//
// 1. **The ceiling: copying the file on the same disk**, as the store writes it: into a new file, fsync'd before
//    it is closed (the store's write stream has `flush: true`: one fsync of the file, none of its folder), then
//    renamed into place. Twice: `fs.copyFile` (the kernel copies; no byte passes through Node) and a stream copy
//    (a read stream piped into a write stream with the store's options: what the store does, minus HTTP).
// 2. **The upload**: POST /v2/deployments/{id}/upload-url (the writer's key), then one PUT of the file to its
//    URL with node:http, streamed from disk, `Content-Length` set, no key, timed from its first byte sent to
//    the end of the answer (200).
//
// Before each upload the service is left alone for `settleMs`, then its resident memory (VmRSS in
// /proc/<pid>/status) is sampled for half a second (idle: the median); during the upload every `sampleMs` (peak:
// the largest). Issue 51 wants it flat: the peak within 50 MiB of idle. Beside both, a read (GET of the
// deployment, one at a time, the writer's key) runs all along: its latency idle and during the upload, since
// reads and writes must not slow down while an archive streams in.
//
// Everything happens in a tenant of its own (UPLOAD_TENANT), emptied before and after; the uploaded objects
// (DATA_DIR/objects/sources/<tenant>/), the folder of the copies and their upload records are removed after.
import { randomFillSync, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { issueApiKey } from '../src/modules/tenancy/api-key.service.ts';
import { OBJECTS_DIRECTORY } from '../src/modules/storage/open-object-store.ts';
import { BENCH_TENANTS, tenantId } from './dataset.ts';
import { rssOf, serviceCpuSeconds } from './harness.ts';
import { percentile } from './lifecycle.ts';
import { median } from './service-load.ts';
import { emptyTenant } from './write-tenant.ts';

/** The tenant after the lifecycle group's (bench/lifecycle.ts). */
export const UPLOAD_TENANT = tenantId(BENCH_TENANTS + 2);

const MiB = 2 ** 20;
/** Where the archive and its copies are written: beside DATA_DIR/objects. */
const WORK_FOLDER = '.bench-upload';

export interface UploadSettings {
  /** The service's DATA_DIR: its store keeps objects in DATA_DIR/objects. */
  dataDir: string;
  /** The service's process, whose memory and CPU are read from /proc. */
  servicePid: number;
  megabytes: number;
  rounds: number;
  /** Quiet time before the idle memory is read (default 1,000 ms). */
  settleMs?: number;
  /** How often the memory is read (default 20 ms). */
  sampleMs?: number;
}

export interface Latency { p50: number; p99: number; count: number }

export interface UploadRound {
  /** fs.copyFile, then fsync and rename: the disk's ceiling. */
  copyFileMiBps: number;
  /** A stream copy with the store's write stream (flush: fsync before close), then rename. */
  streamCopyMiBps: number;
  /** The PUT, first byte sent to the end of its answer. */
  uploadMiBps: number;
  uploadSeconds: number;
  /** The service's CPU over the upload, per MiB. */
  serviceCpuMsPerMiB: number;
  idleRssMiB: number;
  peakRssMiB: number;
  rssSamples: number;
  /** The read beside it: idle (while the memory settles and is sampled), and during the upload. */
  readIdleMs: Latency;
  readDuringMs: Latency;
}

export interface UploadResult {
  settings: Omit<UploadSettings, 'servicePid' | 'dataDir'>;
  rounds: UploadRound[];
  /** Medians of the rounds; peakOverIdleMiB: the largest of the rounds (the bound is on every upload). */
  copyFileMiBps: number;
  streamCopyMiBps: number;
  uploadMiBps: number;
  /** uploadMiBps ÷ copyFileMiBps. */
  ofCeiling: number;
  idleRssMiB: number;
  peakRssMiB: number;
  peakOverIdleMiB: number;
}

const now = () => performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function api(baseUrl: string, key: string, method: string, url: string, body?: unknown): Promise<any> {
  const response = await fetch(`${baseUrl}${url}`, {
    method, headers: { 'x-api-key': key, accept: 'application/json', ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: HTTP ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** The tenant, emptied (of a run that stopped half-way), a key of it that may write, and an internal_source deployment. */
async function prepare(baseUrl: string, em: EntityManager, dataDir: string): Promise<{ key: string; deploymentId: string }> {
  await em.getConnection().execute(`insert into tenant (id, name, created_at, updated_at) values (?, 'bench-upload', now(), now()) on conflict (id) do nothing`, [UPLOAD_TENANT]);
  await emptyUploadTenant(em, dataDir);
  const { key } = await issueApiKey(em.fork(), { tenantIds: [UPLOAD_TENANT], name: 'bench-upload-writer', mayReadSecrets: false, mayWrite: true });
  // As the CLI's remote create makes one.
  const body = { name: `bench-upload-${Date.now().toString(36)}`, source: 'internal_source', source_config: { deployment_type: 'dev' }, source_revision_config: {}, secrets: [] };
  const { id } = await api(baseUrl, key, 'POST', '/v2/deployments', body);
  return { key, deploymentId: id };
}

/** The tenant's uploaded objects, upload records and rows removed; the archive's folder too. */
export async function emptyUploadTenant(em: EntityManager, dataDir: string, { vacuum = false } = {}): Promise<void> {
  await fs.rm(path.join(dataDir, OBJECTS_DIRECTORY, 'sources', UPLOAD_TENANT), { recursive: true, force: true });
  await fs.rm(path.join(dataDir, WORK_FOLDER), { recursive: true, force: true });
  await em.getConnection().execute('delete from source_upload where tenant_id = ?', [UPLOAD_TENANT], 'run');
  await emptyTenant(em, UPLOAD_TENANT, { vacuum });
  if (vacuum) await em.getConnection().execute('vacuum source_upload');
}

/** `megabytes` MiB of random bytes, on disk (fsync'd) before anything is timed. */
async function writeArchive(file: string, megabytes: number): Promise<number> {
  const handle = await fs.open(file, 'wx', 0o600);
  try {
    const chunk = Buffer.alloc(MiB);
    for (let n = 0; n < megabytes; n++) await handle.write(randomFillSync(chunk));
    await handle.sync();
  } finally {
    await handle.close();
  }
  return megabytes * MiB;
}

/** Seconds `copy` takes to write `to`.part, fsync it and rename it to `to`; the copy is removed after. */
async function timedCopy(to: string, copy: (part: string) => Promise<void>): Promise<number> {
  const part = `${to}.part`;
  const started = now();
  await copy(part);
  await fs.rename(part, to);
  const seconds = (now() - started) / 1000;
  await fs.rm(to);
  return seconds;
}

const copyFileThenSync = (from: string) => async (part: string) => {
  await fs.copyFile(from, part, fs.constants.COPYFILE_EXCL);
  const handle = await fs.open(part, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/** The store's own write stream (embedded-object-store.ts put). */
const streamCopy = (from: string) => (part: string) => pipeline(createReadStream(from), createWriteStream(part, { flags: 'wx', mode: 0o600, flush: true }));

/** One PUT of the file to `uploadUrl`, as the CLI sends it (no key); seconds from its first byte to the end of the answer. */
function put(uploadUrl: string, file: string, size: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let started = NaN;
    const request = http.request(uploadUrl, {
      method: 'PUT', agent: false,
      headers: { 'content-type': 'application/gzip', 'content-length': String(size), 'x-goog-content-length-range': '0,209715200' },
    }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { text += chunk; });
      response.on('end', () => {
        if (response.statusCode !== 200) reject(new Error(`PUT of the archive: HTTP ${response.statusCode} ${text}`));
        else resolve((now() - started) / 1000);
      });
    });
    request.once('error', reject);
    const body = createReadStream(file);
    body.once('data', () => { started = now(); });
    body.once('error', (error) => request.destroy(error));
    body.pipe(request);
  });
}

/** Reads the deployment one GET at a time until `stop`; their latencies in ms. */
function readAlongside(baseUrl: string, key: string, deploymentId: string): { latencies: number[]; stop: () => Promise<void> } {
  const latencies: number[] = [];
  let running = true;
  let failure: unknown;
  const loop = (async () => {
    try {
      while (running) {
        const sent = now();
        await api(baseUrl, key, 'GET', `/v2/deployments/${deploymentId}`);
        latencies.push(now() - sent);
      }
    } catch (error) {
      failure = error;
    }
  })();
  return {
    latencies,
    stop: async () => {
      running = false;
      await loop;
      if (failure) throw failure;
    },
  };
}

const latencyOf = (xs: number[]): Latency => ({ p50: percentile(xs, 50), p99: percentile(xs, 99), count: xs.length });

/**
 * The service left alone for `settleMs`, its idle memory (the median of half a second of samples), then one
 * upload with its memory sampled every `sampleMs`; a read runs beside both.
 */
async function uploadOnce(
  baseUrl: string, key: string, deploymentId: string, archive: string, size: number, pid: number, settleMs: number, sampleMs: number, step: (name: string) => void,
) {
  const reads = readAlongside(baseUrl, key, deploymentId);
  try {
    step('idle');
    await sleep(settleMs);
    const idleSamples: number[] = [];
    for (let n = 0; n < 500 / sampleMs; n++) {
      idleSamples.push(rssOf(pid));
      await sleep(sampleMs);
    }
    const readIdle = reads.latencies.splice(0);

    step('upload');
    const { upload_url: uploadUrl } = await api(baseUrl, key, 'POST', `/v2/deployments/${deploymentId}/upload-url`);
    let peakRss = rssOf(pid);
    let samples = 1;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, rssOf(pid));
      samples++;
    }, sampleMs);
    const cpuBefore = serviceCpuSeconds(pid);
    let seconds: number;
    try {
      seconds = await put(uploadUrl, archive, size);
    } finally {
      clearInterval(sampler);
    }
    const cpuSeconds = serviceCpuSeconds(pid) - cpuBefore;
    peakRss = Math.max(peakRss, rssOf(pid));
    return { idleRss: median(idleSamples), peakRss, samples, seconds, cpuSeconds, readIdle, readDuring: reads.latencies.splice(0) };
  } finally {
    await reads.stop();
  }
}

/** The whole group, in the upload tenant, emptied before and after. */
export async function measureUpload(baseUrl: string, em: EntityManager, settings: UploadSettings, progress?: (line: string) => void): Promise<UploadResult> {
  const { dataDir, servicePid: pid, megabytes, rounds, settleMs = 1000, sampleMs = 20 } = settings;
  const { key, deploymentId } = await prepare(baseUrl, em, dataDir);
  const work = path.join(dataDir, WORK_FOLDER);
  try {
    await fs.mkdir(work, { recursive: true, mode: 0o700 });
    const archive = path.join(work, 'archive.tar.gz');
    progress?.(`upload: writing ${megabytes} MiB of random bytes`);
    const size = await writeArchive(archive, megabytes);
    const measured: UploadRound[] = [];
    for (let round = 0; round < rounds; round++) {
      progress?.(`upload round ${round + 1}/${rounds}: copies`);
      // The two copies, their order alternated.
      let copyFileSeconds = NaN;
      let streamSeconds = NaN;
      const copyFile = async () => { copyFileSeconds = await timedCopy(path.join(work, 'copy-file'), copyFileThenSync(archive)); };
      const stream = async () => { streamSeconds = await timedCopy(path.join(work, 'stream-copy'), streamCopy(archive)); };
      for (const copy of round % 2 ? [stream, copyFile] : [copyFile, stream]) await copy();

      const upload = await uploadOnce(baseUrl, key, deploymentId, archive, size, pid, settleMs, sampleMs, (step) => progress?.(`upload round ${round + 1}/${rounds}: ${step}`));
      measured.push({
        copyFileMiBps: megabytes / copyFileSeconds, streamCopyMiBps: megabytes / streamSeconds, uploadMiBps: megabytes / upload.seconds, uploadSeconds: upload.seconds,
        serviceCpuMsPerMiB: (upload.cpuSeconds * 1000) / megabytes, idleRssMiB: upload.idleRss / MiB, peakRssMiB: upload.peakRss / MiB, rssSamples: upload.samples,
        readIdleMs: latencyOf(upload.readIdle), readDuringMs: latencyOf(upload.readDuring),
      });
    }
    const of = (pick: (r: UploadRound) => number) => median(measured.map(pick));
    return {
      settings: { megabytes, rounds, settleMs, sampleMs }, rounds: measured,
      copyFileMiBps: of((r) => r.copyFileMiBps), streamCopyMiBps: of((r) => r.streamCopyMiBps), uploadMiBps: of((r) => r.uploadMiBps),
      ofCeiling: of((r) => r.uploadMiBps) / of((r) => r.copyFileMiBps),
      idleRssMiB: of((r) => r.idleRssMiB), peakRssMiB: of((r) => r.peakRssMiB),
      peakOverIdleMiB: Math.max(...measured.map((r) => r.peakRssMiB - r.idleRssMiB)),
    };
  } finally {
    await emptyUploadTenant(em, dataDir, { vacuum: true });
  }
}

const f = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
const latency = (l: Latency) => `${f(l.p50)} / ${f(l.p99)}`;

export function formatUploadTable({ settings, rounds, ...result }: UploadResult): string {
  const row = (name: string, r: UploadRound) => `| ${name} | ${f(r.copyFileMiBps)} | ${f(r.streamCopyMiBps)} | ${f(r.uploadMiBps)} | ${(r.uploadMiBps / r.copyFileMiBps * 100).toFixed(0)}% | `
    + `${f(r.serviceCpuMsPerMiB)} | ${f(r.idleRssMiB)} | ${f(r.peakRssMiB)} | ${f(r.peakRssMiB - r.idleRssMiB)} | ${latency(r.readIdleMs)} | ${latency(r.readDuringMs)} |`;
  return [
    `Source uploads: one PUT of ${settings.megabytes} MiB of random bytes through the built-in store (upload-url, then the signed URL, no key), `
      + 'against copying the same file on the same disk (fsync\'d, renamed, as the store writes); the service\'s RSS idle (median) and during the upload '
      + `(peak, every ${settings.sampleMs} ms); a GET of the deployment, one at a time, beside it. Target: peak − idle ≤ 50 MiB.`,
    '',
    '| Round | copyFile MiB/s (ceiling) | stream copy MiB/s | upload MiB/s | upload ÷ copyFile | service CPU ms/MiB | idle RSS MiB | peak RSS MiB | peak − idle MiB | read idle p50 / p99 ms | read during p50 / p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rounds.map((r, n) => row(String(n + 1), r)),
    `| median (peak − idle: the largest) | ${f(result.copyFileMiBps)} | ${f(result.streamCopyMiBps)} | ${f(result.uploadMiBps)} | ${(result.ofCeiling * 100).toFixed(0)}% | `
      + `${f(median(rounds.map((r) => r.serviceCpuMsPerMiB)))} | ${f(result.idleRssMiB)} | ${f(result.peakRssMiB)} | ${f(result.peakOverIdleMiB)} | | |`,
  ].join('\n');
}
