// The maker's CLI's HTTP client, request by request as shared/spec/original-write-side.md §6.1 says it sends
// them: `X-Api-Key` and `Accept: application/json` on every call, `Content-Type: application/json` only with a
// body (compact JSON, written by the caller in the CLI's key order), `X-Tenant-ID` once it has one. Raw HTTP,
// so the test sees the bytes as they travelled.
import { expect } from 'vitest';
import { rawRequest, type RawResponse } from './raw-http.ts';

export interface CliAnswer {
  status: number;
  /** What the CLI decodes: undefined for an empty body (its "no result"). */
  json: any;
  raw: RawResponse;
}

export interface CliCallOptions {
  /** Sent exactly as given. */
  body?: string;
  key?: string;
  tenant?: string;
}

export type CliCall = (method: string, path: string, options?: CliCallOptions) => Promise<CliAnswer>;

/** `cli(method, path, options)` against the service at `url()`, with `defaultKey()` unless a key is given. */
export function cliHttp(url: () => string, defaultKey: () => string): CliCall {
  return async (method, path, { body, key = defaultKey(), tenant } = {}) => {
    const headers: Record<string, string> = { 'X-Api-Key': key, Accept: 'application/json' };
    if (tenant) headers['X-Tenant-ID'] = tenant;
    if (body !== undefined) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
    const raw = await rawRequest(`${url()}${path}`, { method, headers, body });
    const text = raw.body.toString('utf8');
    // A 2xx body must be empty or JSON: anything else is the CLI's "Failed to decode response".
    if (raw.status >= 200 && raw.status < 300 && text !== '') expect(raw.headers['content-type']).toBe('application/json');
    return { status: raw.status, json: text === '' ? undefined : JSON.parse(text), raw };
  };
}

/** §6.3 step 2: the first element of `resources` whose name is exactly `name`. */
export async function lookUpByName(cli: CliCall, name: string, options: { tenant?: string; key?: string } = {}): Promise<string | undefined> {
  const answer = await cli('GET', `/v2/deployments?name_contains=${name}`, options);
  expect(answer.status).toBe(200);
  return answer.json.resources.find((resource: { name: string }) => resource.name === name)?.id;
}
