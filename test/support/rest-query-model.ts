// An independent model of GET /v2/deployments' query parameters (docs/decisions.md#deployment-listing): which
// values FastAPI with pydantic v2 (lax mode) accepts, and which deployments a valid query matches. Written
// from pydantic-core's observed behaviour (checked against pydantic 2.13 / pydantic-core 2.46 while
// authoring); shares no code with src/rest.
import type { DemoDocument, DocDeployment } from './deployment-oracle.ts';

export const QUERY_PARAMETERS = [
  'limit', 'offset', 'name_contains', 'status', 'remote_reconciled', 'tag_value_ids', 'image_version', 'deployment_type', 'deployment_ids',
] as const;
export type QueryParameter = (typeof QUERY_PARAMETERS)[number];
export const STATUSES = ['AWAITING_DATABASE', 'READY', 'UNUSED', 'AWAITING_DELETE', 'UNKNOWN'];
export const TYPES = ['dev_free', 'dev', 'prod'];

// Unicode White_Space (Rust's char::is_whitespace), which pydantic strips around an integer.
const WHITE_SPACE = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004,
  0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000]);

function stripWhiteSpace(text: string): string {
  const chars = [...text];
  let [start, end] = [0, chars.length];
  while (start < end && WHITE_SPACE.has(chars[start]!.codePointAt(0)!)) start++;
  while (end > start && WHITE_SPACE.has(chars[end - 1]!.codePointAt(0)!)) end--;
  return chars.slice(start, end).join('');
}

/** pydantic's lax str -> int: ASCII digits, one sign, single underscores between digits, `.0…` allowed, 4300 digits at most. */
export function laxInt(raw: string): bigint | undefined {
  const match = /^([+-]?)([0-9]+(?:_[0-9]+)*)(?:\.0+)?$/.exec(stripWhiteSpace(raw));
  if (!match) return undefined;
  const digits = match[2]!.replaceAll('_', '').replace(/^0+/, '');
  if (digits.length > 4300 || (digits.length === 4300 && match[1] === '-')) return undefined;
  return BigInt(`${match[1]}${digits || '0'}`);
}

const TRUE = ['1', 'on', 't', 'true', 'y', 'yes'];
const FALSE = ['0', 'off', 'f', 'false', 'n', 'no'];
const asciiLower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

export function laxBool(raw: string): boolean | undefined {
  const word = asciiLower(raw);
  return TRUE.includes(word) ? true : FALSE.includes(word) ? false : undefined;
}

const HEX = '[0-9a-fA-F]';
const HYPHENATED = `${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}`;
const UUID_FORMS = new RegExp(`^(?:${HYPHENATED}|\\{${HYPHENATED}\\}|urn:uuid:${HYPHENATED}|${HEX}{32})$`);

/** The uuid crate's accepted spellings, as 32 lower-case hex digits; undefined when not a UUID. */
export function uuidDigits(raw: string): string | undefined {
  return UUID_FORMS.test(raw) ? raw.replace(/^urn:uuid:/, '').replace(/[{}-]/g, '').toLowerCase() : undefined;
}

export interface Filter {
  nameContains?: string;
  statuses?: string[];
  remoteReconciled?: boolean;
  tagValueIds?: string[];
  imageVersion?: string;
  deploymentType?: string;
  deploymentIds?: string[];
}

export interface Classified {
  /** Parameters FastAPI would reject: each must be named in the 422. */
  invalid: Set<QueryParameter>;
  /** Text containing NUL: valid for pydantic, can never match; a 422 (value_error) naming it is tolerated. */
  tolerated: Set<QueryParameter>;
  limit: bigint;
  offset: bigint;
  filter: Filter;
}

/** The effective value of every declared parameter (the last repeated key wins), validated. */
export function classify(values: Partial<Record<QueryParameter, string>>): Classified {
  const invalid = new Set<QueryParameter>();
  const tolerated = new Set<QueryParameter>();
  const filter: Filter = {};
  const int = (name: 'limit' | 'offset', fallback: bigint, min: bigint, max?: bigint) => {
    if (values[name] === undefined) return fallback;
    const parsed = laxInt(values[name]);
    if (parsed === undefined || parsed < min || (max !== undefined && parsed > max)) invalid.add(name);
    return parsed ?? fallback;
  };
  const limit = int('limit', 20n, 1n, 100n);
  const offset = int('offset', 0n, 0n);
  const text = (name: 'name_contains' | 'image_version') => {
    const raw = values[name];
    if (raw?.includes('\u0000')) tolerated.add(name);
    return raw || undefined;
  };
  filter.nameContains = text('name_contains');
  filter.imageVersion = text('image_version');
  if (values.status) {
    filter.statuses = values.status.split(',');
    if (!filter.statuses.every((s) => STATUSES.includes(s))) invalid.add('status');
  }
  if (values.remote_reconciled !== undefined) {
    filter.remoteReconciled = laxBool(values.remote_reconciled);
    if (filter.remoteReconciled === undefined) invalid.add('remote_reconciled');
  }
  if (values.deployment_type !== undefined) {
    filter.deploymentType = values.deployment_type;
    if (!TYPES.includes(values.deployment_type)) invalid.add('deployment_type');
  }
  for (const [name, key, max] of [['tag_value_ids', 'tagValueIds', Infinity], ['deployment_ids', 'deploymentIds', 100]] as const) {
    if (!values[name]) continue;
    const items = values[name].split(',').map(uuidDigits);
    if (items.length > max || items.some((item) => item === undefined)) invalid.add(name);
    filter[key] = items.filter((item) => item !== undefined);
  }
  return { invalid, tolerated, limit, offset, filter };
}

const digitsOf = (uuid: string) => uuid.replaceAll('-', '').toLowerCase();

/** Why `deployment` fails `filter` (the first filter it fails), or undefined when it matches. */
export function mismatch(deployment: DocDeployment, filter: Filter, tags: DemoDocument['tags']): string | undefined {
  if (filter.nameContains && !asciiLower(deployment.name).includes(asciiLower(filter.nameContains))) return 'name_contains';
  if (filter.statuses && !filter.statuses.includes(deployment.status!)) return 'status';
  if (filter.remoteReconciled !== undefined && deployment.remote_reconciled !== filter.remoteReconciled) return 'remote_reconciled';
  if (filter.imageVersion && deployment.image_version !== filter.imageVersion) return 'image_version';
  if (filter.deploymentType && deployment.source_config.deployment_type !== filter.deploymentType) return 'deployment_type';
  if (filter.deploymentIds && !filter.deploymentIds.includes(digitsOf(deployment.id))) return 'deployment_ids';
  if (filter.tagValueIds) {
    const keyOf = new Map(tags.flatMap((t) => t.values.map((v) => [digitsOf(v.id), t.key] as const)));
    // A value the tenant does not have forms a group of its own, which no deployment satisfies.
    const groups = Map.groupBy(filter.tagValueIds, (id) => keyOf.get(id) ?? `unknown ${id}`);
    const own = new Set(deployment.tag_value_ids.map(digitsOf));
    if (![...groups.values()].every((group) => group.some((id) => own.has(id)))) return 'tag_value_ids';
  }
  return undefined;
}

/** Listing order: created_at descending, then id descending. */
export const listingOrder = (a: DocDeployment, b: DocDeployment) =>
  Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Python's urllib.parse.unquote (what uvicorn does to a path): valid escapes decoded, bad UTF-8 replaced. */
export function unquote(text: string): string {
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) =>
    new TextDecoder('utf-8', { ignoreBOM: true }).decode(Uint8Array.from(run.slice(1).split('%'), (hex) => Number.parseInt(hex, 16))));
}
