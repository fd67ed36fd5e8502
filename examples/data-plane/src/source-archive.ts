// What the simulator really does with a remote build's source (the CLI's `deploy --remote`): it downloads the
// archive from the lease's signed URL (a plain GET, no key), unpacks it with node-tar into a temporary folder of
// its own, lists the files it found, and reads the project's JSON config file (`langgraph.json` unless the
// revision's `graph_config_path` names another) for its `graphs`. It builds nothing from them: it reports what it
// found as build log lines, or why the archive cannot be built (then the revision ends BUILD_FAILED).
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import * as tar from 'tar';

/** The CLI refuses to upload more (and so does the gateway): 200 MiB. */
export const MAX_ARCHIVE_BYTES = 200 * 1024 * 1024;
/** Entries (files, folders, links) an archive may hold; more is refused before they reach the disk. */
export const MAX_ENTRIES = 20_000;
/** Bytes its files may take once unpacked (node-tar also stops a gzip that inflates more than 1000 times). */
export const MAX_UNPACKED_BYTES = 1024 * 1024 * 1024;
/** Names of files listed in the build log; the rest are counted. */
const LISTED_FILES = 20;
/** The config file when the revision names none (the original's own name for it). */
export const DEFAULT_CONFIG_PATH = 'langgraph.json';

/** What the build found: its log lines, and the reason it failed (null: the source can be built). */
export interface SourceInspection {
  lines: string[];
  failure: string | null;
}

/** The archive cannot be built; `message` is the reason the build log and the revision's status message give. */
class BuildFailure extends Error {
  override name = 'BuildFailure';
}

/**
 * Downloads the archive at `url`, unpacks it into a temporary folder (removed before this returns), and reads its
 * config file at `configPath`. Never throws for a bad archive: the failure is in the answer.
 */
export async function inspectSourceArchive(url: string, configPath: string | null, signal?: AbortSignal): Promise<SourceInspection> {
  const lines: string[] = [];
  const folder = await mkdtemp(path.join(tmpdir(), 'data-plane-source-'));
  try {
    const { size, skipped } = await downloadAndUnpack(url, path.join(folder, 'src'), signal);
    lines.push(`Downloaded source archive (${size} bytes)`);
    const files = await filesIn(path.join(folder, 'src'));
    lines.push(`Unpacked ${files.length} file${files.length === 1 ? '' : 's'}: ${files.slice(0, LISTED_FILES).join(', ')}${files.length > LISTED_FILES ? `, … (${files.length - LISTED_FILES} more)` : ''}`);
    if (skipped.length > 0) lines.push(`Skipped ${skipped.length} entr${skipped.length === 1 ? 'y' : 'ies'} (links and paths outside the project are not unpacked): ${skipped.slice(0, LISTED_FILES).join(', ')}`);
    lines.push(await readConfig(path.join(folder, 'src'), configPath || DEFAULT_CONFIG_PATH));
    return { lines, failure: null };
  } catch (error) {
    if (!(error instanceof BuildFailure)) throw error;
    return { lines, failure: error.message };
  } finally {
    // An archive refused mid-way (too many entries, too large) leaves node-tar writing the files it had begun
    // while this removes the folder: the removal is retried until they are done (ENOTEMPTY until then).
    await rm(folder, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  }
}

/**
 * Streams the archive from `url` through node-tar into `target` (never whole in memory, nor on disk as an archive):
 * at most MAX_ARCHIVE_BYTES downloaded; files and folders only (symbolic and hard links are dropped, as the CLI
 * drops them when it packs); `..` and absolute paths stripped (node-tar's default); at most MAX_ENTRIES entries
 * and MAX_UNPACKED_BYTES. Answers the bytes downloaded and the entries not unpacked.
 */
async function downloadAndUnpack(url: string, target: string, signal?: AbortSignal): Promise<{ size: number; skipped: string[] }> {
  let response: Response;
  const timeout = AbortSignal.timeout(300_000);
  try {
    response = await fetch(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
  } catch (error) {
    throw new BuildFailure(`Cannot download the source archive: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!response.ok || !response.body) {
    const text = (await response.text().catch(() => '')).slice(0, 200);
    throw new BuildFailure(`Cannot download the source archive: HTTP ${response.status} ${text}`.trimEnd());
  }
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_ARCHIVE_BYTES) {
    await response.body.cancel();
    throw new BuildFailure(`The source archive is ${declared} bytes, more than the limit of ${MAX_ARCHIVE_BYTES}`);
  }
  let size = 0;
  const bounded = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > MAX_ARCHIVE_BYTES) done(new BuildFailure(`The source archive is more than the limit of ${MAX_ARCHIVE_BYTES} bytes`));
      else done(null, chunk);
    },
  });
  await mkdir(target);
  const skipped: string[] = [];
  let entries = 0;
  let bytes = 0;
  let refused: BuildFailure | undefined;
  let unreadable: string | undefined;
  const unpacking = tar.x({
    cwd: target,
    strict: false,
    preserveOwner: false,
    filter: (entryPath, entry) => {
      if (refused) return false;
      entries++;
      bytes += entry.size ?? 0;
      if (entries > MAX_ENTRIES) refused = new BuildFailure(`The source archive holds more than ${MAX_ENTRIES} entries`);
      else if (bytes > MAX_UNPACKED_BYTES) refused = new BuildFailure(`The source archive unpacks to more than ${MAX_UNPACKED_BYTES} bytes`);
      if (refused) {
        // Stop reading: nothing more is downloaded or written.
        bounded.destroy(refused);
        return false;
      }
      const type = 'type' in entry ? entry.type : 'File';
      if (type === 'File' || type === 'OldFile' || type === 'ContiguousFile' || type === 'Directory') return true;
      skipped.push(`${entryPath} (${type})`);
      return false;
    },
    onwarn: (code, message, data) => {
      if (code === 'TAR_BAD_ARCHIVE' || code === 'TAR_ABORT' || code === 'Z_DATA_ERROR') unreadable ??= message;
      else if (code === 'TAR_ENTRY_ERROR') skipped.push(`${String((data as { path?: string }).path ?? '')} (${message})`);
    },
  });
  try {
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), bounded, unpacking);
  } catch (error) {
    if (refused) throw refused;
    if (error instanceof BuildFailure) throw error;
    unreadable ??= error instanceof Error ? error.message : String(error);
  }
  if (refused) throw refused;
  if (unreadable) throw new BuildFailure(`The source archive is not a readable .tar.gz: ${unreadable}`);
  return { size, skipped };
}

/** The files under `root`, relative and `/`-separated, sorted. */
async function filesIn(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/** The config file's graphs, as one log line; a BuildFailure when it is missing, not JSON, or names no graph. */
async function readConfig(root: string, configPath: string): Promise<string> {
  const file = path.resolve(root, configPath);
  if (!file.startsWith(root + path.sep)) throw new BuildFailure(`Cannot read ${configPath}: not a path inside the archive`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BuildFailure(`Cannot read ${configPath}: ${code === 'ENOENT' || code === 'ENOTDIR' ? 'not in the archive' : code === 'EISDIR' ? 'a folder, not a file' : String(code)}`);
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    throw new BuildFailure(`Cannot read ${configPath}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const graphs = typeof config === 'object' && config !== null && !Array.isArray(config) ? (config as { graphs?: unknown }).graphs : undefined;
  if (typeof graphs !== 'object' || graphs === null || Array.isArray(graphs) || Object.keys(graphs).length === 0) {
    throw new BuildFailure(`Cannot read ${configPath}: has no "graphs" (an object naming each graph's "path:object")`);
  }
  const named = Object.entries(graphs).map(([name, target]) => `${name} (${typeof target === 'string' ? target : JSON.stringify(target)})`);
  const dependencies = (config as { dependencies?: unknown }).dependencies;
  const deps = Array.isArray(dependencies) ? `; dependencies ${dependencies.map(String).join(', ')}` : '';
  return `Config ${configPath}: graphs ${named.join(', ')}${deps}`;
}
