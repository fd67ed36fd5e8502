// Random requests against the live REST door (docs/decisions.md#deployment-listing, #repository-listing):
// thousands of query strings for GET /v2/deployments, mixing valid and hostile values for the nine
// parameters, and random path segments for the repository listings. Expected outcomes come from an
// independent model of FastAPI/pydantic (test/support/rest-query-model.ts), never from src/rest.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocDeployment } from './support/deployment-oracle.ts';
import { ACME_DEPLOYMENT, ACME_INTEGRATION } from './support/fixtures.ts';
import { startRestDemo, type RestDemo } from './support/rest-demo.ts';
import {
  classify, listingOrder, mismatch, QUERY_PARAMETERS, STATUSES, TYPES, unquote, uuidDigits, type QueryParameter,
} from './support/rest-query-model.ts';

const RUNS = { mostlyValid: 1200, hostile: 1000, repositories: 600 };
const WHITESPACE = [' ', '\t', '\n', '\u00a0', '\u3000', '\u2028', '\u200b', '\ufeff', '\u001c', '\u180e'];
const HOSTILE = ["' OR 1=1 --", "'; DROP TABLE deployment; --", '%', '_', '\\', '%_\\', '\u0000', 'a\u0000b', '😀', '\u202eevil', '\u200f',
  'مرحبا', '中文', 'e\u0301', 'ß', 'İ', 'ı', '\ufeff', '\u00a0', ',', ',,', '&', '=', '#', '+', '?', '/', '"', '<script>', '${x}', 'null', 'None', '[]'];
const PERCENT_GARBAGE = ['%', '%%', '%zz', '%2F', '%zz%2f', '%E2%82', '%FF%FE', '%C0%AF', '%25', '%00', '%2C', '%2c%2C', '+', '%2B', '%F0%9F%98', '%e2%80%ae'];

/** A value as it travels: `raw` is what goes into the URL. */
type Raw = { raw: string };
const plain = (arb: fc.Arbitrary<string>): fc.Arbitrary<Raw> => arb.map((text) => ({ raw: encodeURIComponent(text) }));
// Characters whose case mapping reaches ASCII (K Kelvin sign, ſ, ı...) make "case-insensitive" depend on the collation.
const unambiguous = (text: string) => [...text].filter((c) => c < '\u0080' || !/[a-z]/i.test(c.toLowerCase() + c.toUpperCase())).join('');
const flipCase = (text: string, seed: number) => [...text].map((c, i) => ((seed >> (i % 30)) & 1 ? c.toUpperCase() : c.toLowerCase())).join('');

describe('REST properties', () => {
  let demo: RestDemo;
  beforeAll(async () => {
    demo = await startRestDemo();
  });
  afterAll(async () => {
    await demo?.close();
  });

  // ---- value generators -------------------------------------------------------------------------------
  const garbage = (): fc.Arbitrary<Raw> => fc.oneof(
    plain(fc.constantFrom(...HOSTILE)),
    plain(fc.string({ unit: 'binary', maxLength: 12 }).map(unambiguous)),
    plain(fc.string({ unit: 'grapheme', maxLength: 12 })),
    fc.array(fc.oneof(fc.constantFrom(...PERCENT_GARBAGE), plain(fc.constantFrom('a', 'READY', '1', 'é'))).map((r) => (typeof r === 'string' ? r : r.raw)), { minLength: 1, maxLength: 5 })
      .map((parts) => ({ raw: parts.join('') })),
    // Long values: unreserved characters only, so that the URL stays within the server's header limit.
    fc.tuple(fc.constantFrom('a', 'Ab-', '9', '_.~', 'READY,', '0'), fc.integer({ min: 100, max: 10_000 }))
      .map(([piece, length]) => ({ raw: piece.repeat(Math.ceil(length / piece.length)).slice(0, length) })),
  );
  const decorate = (core: fc.Arbitrary<string>) => fc.tuple(
    fc.array(fc.constantFrom(...WHITESPACE), { maxLength: 2 }), fc.constantFrom('', '', '+', '-'), fc.constantFrom('', '', '0', '000'),
    core, fc.constantFrom('', '', '.0', '.000', '.', '.5', 'e0', '_'), fc.array(fc.constantFrom(...WHITESPACE), { maxLength: 2 }),
  ).map(([pre, sign, zeros, digits, suffix, post]) => `${pre.join('')}${sign}${zeros}${digits}${suffix}${post.join('')}`);
  const integer = (small: fc.Arbitrary<number>, w: number): fc.Arbitrary<Raw> => fc.oneof(
    { arbitrary: plain(small.map(String)), weight: w },
    { arbitrary: plain(decorate(small.map((n) => String(Math.abs(n))))), weight: 3 },
    { arbitrary: plain(small.map((n) => String(Math.abs(n)).split('').join('_'))), weight: 1 },
    { arbitrary: plain(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String)), weight: 1 },
    { arbitrary: plain(fc.integer({ min: 4290, max: 4310 }).chain((n) => fc.constantFrom('1'.repeat(n), `${'0'.repeat(n)}7`, `-${'1'.repeat(n)}`))), weight: 1 },
    { arbitrary: plain(fc.constantFrom('', '1e3', '0x10', '١', '１', '1__0', '_1', '1_', '- 1', 'NaN', 'Infinity', '2147483648', '9223372036854775808')), weight: 1 },
    { arbitrary: garbage(), weight: 1 },
  );
  const bool = (w: number): fc.Arbitrary<Raw> => fc.oneof(
    { arbitrary: plain(fc.tuple(fc.constantFrom('true', 'false', '1', '0', 'yes', 'no', 'on', 'off', 't', 'f', 'y', 'n'), fc.nat()).map(([word, s]) => flipCase(word, s))), weight: w },
    { arbitrary: plain(fc.constantFrom('', ' true', 'false ', '2', 'tru', 'TRUE\u0000', 'ｔrue', 'truе', 'none', '-1', '1.0')), weight: 2 },
    { arbitrary: fc.constantFrom({ raw: 'true+' }, { raw: '%74rue' }, { raw: 'yes%00' }), weight: 1 },
    { arbitrary: garbage(), weight: 1 },
  );
  /** Ids of `name`'s own kind mostly (so that the filter matches something), others' and random ones sometimes. */
  const uuid = (name: QueryParameter = 'deployment_ids'): fc.Arbitrary<string> => {
    const tagValues = demo.doc.tags.flatMap((t) => t.values.map((v) => v.id));
    const own = name === 'tag_value_ids' ? tagValues : demo.deployments.map((d) => d.id);
    const others = name === 'tag_value_ids' ? [...demo.deployments.slice(0, 5).map((d) => d.id), ACME_DEPLOYMENT] : [...tagValues, ACME_DEPLOYMENT];
    const id = fc.oneof({ arbitrary: fc.constantFrom(...own), weight: 8 }, { arbitrary: fc.constantFrom(...others), weight: 1 }, { arbitrary: fc.uuid(), weight: 1 });
    return fc.tuple(id, fc.nat(), fc.nat(14)).map(([value, seed, form]) => {
      const simple = value.replaceAll('-', '');
      const forms = [value, flipCase(value, seed), value.toUpperCase(), `{${value}}`, `urn:uuid:${value}`, simple, flipCase(simple, seed),
        [`{${simple}}`, `URN:UUID:${value}`, ` ${value}`, `${value} `, value.slice(0, -1), `${value}0`, value.replace('-', ''),
          `${value}-`, value.replace(/[0-9a-f]/, 'g'), `{${value}`, `${value}}`, `${value}😀`, `${simple.slice(0, 12)}-${simple.slice(12)}`][seed % 13]!];
      return forms[form % 8]!;
    });
  };
  const list = (item: fc.Arbitrary<string>, max: number) => fc.array(item, { minLength: 1, maxLength: max }).map((items) => items.join(','));
  const uuidList = (name: QueryParameter, w: number): fc.Arbitrary<Raw> => fc.oneof(
    { arbitrary: plain(list(uuid(name), 4)), weight: w },
    { arbitrary: plain(list(fc.oneof({ arbitrary: uuid(name), weight: 4 }, { arbitrary: fc.constantFrom('', ' ', 'null'), weight: 1 }), 4)), weight: 2 },
    { arbitrary: plain(fc.constant('')), weight: 1 },
    ...(name === 'deployment_ids' ? [{ arbitrary: plain(fc.integer({ min: 95, max: 105 }).chain((n) => fc.array(uuid(name), { minLength: n, maxLength: n }).map((ids) => ids.join(',')))), weight: 1 }] : []),
    { arbitrary: garbage(), weight: 1 },
  );
  const statuses = (w: number): fc.Arbitrary<Raw> => fc.oneof(
    { arbitrary: plain(list(fc.constantFrom(...STATUSES), 3)), weight: w },
    { arbitrary: plain(list(fc.constantFrom(...STATUSES, 'ready', ' READY', 'READY ', '', 'DELETED', 'READY\u0000'), 3)), weight: 2 },
    { arbitrary: plain(fc.constant('')), weight: 1 },
    { arbitrary: garbage(), weight: 1 },
  );
  const nameText = (w: number): fc.Arbitrary<Raw> => {
    const piece = fc.tuple(fc.constantFrom(...demo.deployments.map((d) => d.name)), fc.nat(), fc.nat(), fc.nat())
      .map(([name, a, b, seed]) => flipCase(name.slice(Math.min(a, b) % name.length, 1 + (Math.max(a, b) % name.length)), seed));
    return fc.oneof(
      { arbitrary: plain(piece), weight: w },
      { arbitrary: plain(fc.constantFrom('%', '_', '\\', 'a_b', 'A%B', 'a\\b', 'lit-a', 'v_f', 'dev%free', '-2', '')), weight: 3 },
      { arbitrary: plain(fc.tuple(piece, fc.constantFrom(...HOSTILE)).map(([p, h]) => unambiguous(p + h))), weight: 1 },
      { arbitrary: garbage().filter((r) => unambiguous(unquote(r.raw)) === unquote(r.raw)), weight: 2 },
    );
  };
  const imageVersion = (w: number): fc.Arbitrary<Raw> => fc.oneof(
    { arbitrary: plain(fc.constantFrom(...new Set(demo.deployments.map((d) => d.image_version!)))), weight: w },
    { arbitrary: plain(fc.constantFrom(...demo.deployments.slice(0, 8).flatMap((d) => [` ${d.image_version}`, `${d.image_version}.0`, `v${d.image_version}`]), '')), weight: 2 },
    { arbitrary: garbage(), weight: 2 },
  );
  const deploymentType = (w: number): fc.Arbitrary<Raw> => fc.oneof(
    { arbitrary: plain(fc.constantFrom(...TYPES)), weight: w },
    { arbitrary: plain(fc.constantFrom('PROD', 'Dev', 'dev ', ' dev', 'dev-free', 'dev_free\u0000', 'staging', '')), weight: 2 },
    { arbitrary: garbage(), weight: 1 },
  );
  /** Every parameter's values; `w` weighs the plainly valid ones against the rest (about 10 in all). */
  const values = (w: number): Record<QueryParameter, fc.Arbitrary<Raw>> => ({
    limit: integer(fc.integer({ min: w > 10 ? 1 : -2, max: w > 10 ? 100 : 105 }), w), offset: integer(fc.integer({ min: w > 10 ? 0 : -2, max: 70 }), w),
    name_contains: nameText(w), status: statuses(w), remote_reconciled: bool(w), tag_value_ids: uuidList('tag_value_ids', w),
    image_version: imageVersion(w), deployment_type: deploymentType(w), deployment_ids: uuidList('deployment_ids', w),
  });
  /** Keys as sent: the name itself, or the same name with a percent-escaped letter (still that parameter). */
  const key = (name: string) => fc.nat(name.length * 4).map((i) => (i > 0 && i <= name.length && /[a-z]/.test(name[i - 1]!)
    ? `${name.slice(0, i - 1)}%${name.charCodeAt(i - 1).toString(16)}${name.slice(i)}` : name));
  const entry = (name: QueryParameter, arb: fc.Arbitrary<Raw>) => fc.tuple(key(name), arb).map(([k, v]) => `${k}=${v.raw}`);
  const unknownEntry = fc.tuple(fc.constantFrom('Limit', 'limit[]', 'limit%20', 'foo', 'statuses', 'offset_', ''), garbage()).map(([k, v]) => `${k}=${v.raw}`);

  const maybe = (arb: fc.Arbitrary<string>, present: number, absent: number) =>
    fc.oneof({ arbitrary: arb, weight: present }, { arbitrary: fc.constant(null), weight: absent });
  /** Queries where each parameter, when present, is usually valid: filters that match something get checked. */
  const mostlyValidQuery = () => {
    const arbs = values(60);
    return fc.tuple(...QUERY_PARAMETERS.map((name) => maybe(entry(name, arbs[name]), 2, 3)), maybe(unknownEntry, 1, 3))
      .chain((entries) => fc.shuffledSubarray(entries.filter((e) => e !== null), { minLength: entries.filter((e) => e !== null).length }))
      .map((entries) => entries.join('&'));
  };
  /** Anything: repeated keys, bare keys, empty pairs, stray separators. */
  const hostileQuery = () => {
    const arbs = values(6);
    const anyEntry = fc.oneof(
      // name_contains keeps to its own generator: garbage there could fold to ASCII under the database's collation.
      ...QUERY_PARAMETERS.map((name) => entry(name, name === 'name_contains' ? arbs[name] : fc.oneof(arbs[name], garbage()))),
      fc.constantFrom(...QUERY_PARAMETERS), unknownEntry, fc.constantFrom('', '=', '&', '==', 'limit==5'),
    );
    return fc.array(anyEntry, { maxLength: 12 }).map((entries) => entries.join('&'));
  };

  // ---- the oracle -------------------------------------------------------------------------------------
  async function checkListing(query: string) {
    fc.pre(query.length < 14_000);
    const params = new URLSearchParams(query);
    const effective = Object.fromEntries(QUERY_PARAMETERS.flatMap((name) => (params.has(name) ? [[name, params.getAll(name).at(-1)!]] : [])));
    const model = classify(effective);
    const response = await demo.get(`/v2/deployments?${query}`);
    const context = `GET /v2/deployments?${query.slice(0, 600)}\n-> ${response.status} ${response.text.slice(0, 600)}`;
    expect(response.status, context).toBeLessThan(500);
    if (response.status === 422) {
      expect(response.body.detail.length, context).toBeGreaterThan(0);
      const named = response.body.detail.map((error: { loc: unknown[] }) => error.loc[1]);
      for (const error of response.body.detail) {
        expect(error.loc[0], context).toBe('query');
        expect(model.invalid.has(error.loc[1]) || (model.tolerated.has(error.loc[1]) && error.type === 'value_error'), context).toBe(true);
        if (error.loc.length === 2 && ['limit', 'offset', 'remote_reconciled', 'deployment_type'].includes(error.loc[1])) {
          expect(error.input, context).toBe(effective[error.loc[1]]);
        }
      }
      for (const name of model.invalid) expect(named, context).toContain(name);
      return;
    }
    expect({ status: response.status, invalid: [...model.invalid] }, context).toEqual({ status: 200, invalid: [] });
    const byId = new Map(demo.deployments.map((d) => [d.id, d]));
    const resources: { id: string; name: string; status: string; image_version: string; source_config: { deployment_type: string } }[] = response.body.resources;
    for (const resource of resources) {
      const stored = byId.get(resource.id);
      expect(stored, `${context}\nunknown id ${resource.id}`).toBeDefined();
      // The record's own fields, and the stored ones it does not carry (reconciliation, tags).
      const seen = { ...stored!, name: resource.name, status: resource.status, image_version: resource.image_version, source_config: resource.source_config } as DocDeployment;
      expect(mismatch(seen, model.filter, demo.doc.tags), `${context}\n${resource.id} fails the filter`).toBeUndefined();
    }
    expect(BigInt(resources.length) <= model.limit, context).toBe(true);
    expect(BigInt(response.body.offset), context).toBe(model.offset + BigInt(resources.length));
    const expected = demo.deployments.filter((d) => mismatch(d, model.filter, demo.doc.tags) === undefined).sort(listingOrder).map((d) => d.id);
    const start = model.offset > BigInt(expected.length) ? expected.length : Number(model.offset);
    expect(resources.map((r) => r.id), context).toEqual(expected.slice(start, start + Number(model.limit)));
  }

  describe('GET /v2/deployments with random query strings', () => {
    it('mostly valid parameters: 200 with exactly the matching page, or a 422 naming every invalid parameter', async () => {
      await fc.assert(fc.asyncProperty(mostlyValidQuery(), checkListing), { numRuns: RUNS.mostlyValid });
    }, 60_000);

    it('hostile query strings: never a 5xx, and the same answer as FastAPI would give', async () => {
      await fc.assert(fc.asyncProperty(hostileQuery(), checkListing), { numRuns: RUNS.hostile });
    }, 60_000);

    it.each([
      `offset=${'1'.repeat(4301)}&limit=1`, `offset=${'0'.repeat(5000)}5&limit=1`, 'name_contains=%00&image_version=a%00&limit=0',
      '%6cimit=2&limit=3&limit', 'status=READY,&deployment_type=dev&deployment_type=prod', 'tag_value_ids=,&deployment_ids=%7B%7D',
      "name_contains=' OR 1=1 --", 'name_contains=A%25B', 'name_contains=_', 'name_contains=%5C', 'remote_reconciled=oN&offset=+1_0.00',
    ].map((query) => [query.length > 60 ? `${query.slice(0, 30)}…(${query.length} characters)` : query, query]))('example: %s', async (_label, query) => {
      await checkListing(query!);
    });

    it('the generators do reach both outcomes and non-empty pages (so that the properties test something)', async () => {
      const samples = fc.sample(mostlyValidQuery(), { numRuns: 300, seed: 42 });
      const outcomes: string[] = [];
      for (const query of samples) {
        const response = await demo.get(`/v2/deployments?${query}`);
        outcomes.push(response.status === 200 ? (response.body.resources.length > 0 ? 'page' : 'empty') : String(response.status));
      }
      const counts = Object.fromEntries([...Map.groupBy(outcomes, (o) => o)].map(([k, v]) => [k, v.length]));
      expect(counts.page ?? 0, JSON.stringify(counts)).toBeGreaterThan(60);
      expect(counts['422'] ?? 0, JSON.stringify(counts)).toBeGreaterThan(30);
    });
  });

  describe('repository listings with random path segments', () => {
    const templates = ['/v1/integrations/codehost/{id}/repos', '/v1/integrations/{codehost}/{id}/repos',
      '/v1/integrations/managed/codehost/{id}/repos', '/v1/integrations/forge/github/{id}/repos'];
    // Starlette matches the percent-decoded path (a `%2F` splits a segment), literal routes before the template.
    const routes: [RegExp, 'codehost' | 'managed', boolean][] = [
      [/^\/v1\/integrations\/codehost\/([^/]+)\/repos$/, 'codehost', false],
      [/^\/v1\/integrations\/managed\/codehost\/([^/]+)\/repos$/, 'managed', false],
      [/^\/v1\/integrations\/forge\/github\/([^/]+)\/repos$/, 'managed', false],
      [/^\/v1\/integrations\/([^/]+)\/([^/]+)\/repos$/, 'codehost', true],
    ];
    const segment = (): fc.Arbitrary<string> => {
      const ids = [...demo.doc.integrations.map((i) => i.id), ACME_INTEGRATION, ACME_DEPLOYMENT];
      const uuidSegment = fc.tuple(fc.oneof(fc.constantFrom(...ids), fc.uuid()), fc.nat(), fc.nat(6)).map(([id, seed, form]) =>
        [id, id.toUpperCase(), flipCase(id, seed), `{${id}}`, `urn:uuid:${id}`, id.replaceAll('-', ''), `{${id.replaceAll('-', '')}}`][form]!);
      return fc.oneof(
        { arbitrary: uuidSegment.map(encodeURIComponent), weight: 4 },
        // Partly percent-encoded: still the same UUID once decoded.
        { arbitrary: fc.tuple(uuidSegment, fc.nat()).map(([id, i]) => [...id].map((c, j) => (j === i % id.length ? `%${c.charCodeAt(0).toString(16).padStart(2, '0')}` : encodeURIComponent(c))).join('')), weight: 2 },
        { arbitrary: uuid().map(encodeURIComponent), weight: 2 },
        { arbitrary: garbage().map((r) => r.raw), weight: 3 },
      // Two segments of a path stay under node's 16 KiB limit on a request's line and headers (beyond it: 431).
      ).filter((s) => s.length > 0 && !/^(\.|%2e){1,2}$/i.test(s) && s.length < 7_500);
    };
    const codehostSegment = () => fc.oneof(fc.constantFrom('github', 'gitlab', 'GitHub', 'bitbucket', 'managed', 'forge', 'git%68ub', 'c%6fdehost'), segment());

    /** Starlette's answer for a raw path: routed on the decoded path, then the id validated, then looked up. */
    async function checkRepositoryPath(path: string) {
      const response = await demo.get(path);
      const context = `GET ${path.slice(0, 400)}\n-> ${response.status} ${response.text.slice(0, 400)}`;
      expect(response.status, context).toBeLessThan(500);
      const decoded = unquote(path);
      const route = routes.map(([pattern, kind, byName]) => ({ found: pattern.exec(decoded), kind, byName })).find((r) => r.found);
      if (!route) {
        expect({ status: response.status, body: response.body }, context).toEqual({ status: 404, body: { detail: 'Not Found' } });
        return;
      }
      const [hostName, idSegment] = route.byName ? [route.found![1]!, route.found![2]!] : [undefined, route.found![1]!];
      const digits = uuidDigits(idSegment);
      if (digits === undefined) {
        expect(response.status, context).toBe(422);
        for (const error of response.body.detail) expect({ loc: error.loc, input: error.input }, context).toEqual({ loc: ['path', 'integration_id'], input: idSegment });
        return;
      }
      const canonical = `${digits.slice(0, 8)}-${digits.slice(8, 12)}-${digits.slice(12, 16)}-${digits.slice(16, 20)}-${digits.slice(20)}`;
      const found = demo.doc.integrations.find((i) => i.id === canonical && i.kind === route.kind && (hostName === undefined || i.codehost === hostName));
      if (!found) {
        expect({ status: response.status, body: response.body }, context).toEqual({ status: 404, body: { detail: `Integration ${canonical} not found.` } });
        return;
      }
      expect(response.status, context).toBe(200);
      expect(response.body.map((r: { id: number }) => r.id).sort(), context).toEqual(found.repositories.map((r) => (r as { id: number }).id).sort());
      expect(response.body.every((r: { host_integration_id: string }) => r.host_integration_id === canonical), context).toBe(true);
    }

    it('never a 5xx: 422 only for a segment that is no UUID (loc path/integration_id), otherwise 200 or 404', async () => {
      await fc.assert(fc.asyncProperty(fc.constantFrom(...templates), segment(), codehostSegment(), (template, id, codehost) =>
        checkRepositoryPath(template.replace('{id}', id).replace('{codehost}', codehost))), { numRuns: RUNS.repositories });
    }, 60_000);

    // Cases the property found once; kept so that they are checked on every run, whatever the seed.
    it.each([
      ['a malformed escape elsewhere in the path does not stop decoding', '/v1/integrations/codehost/%zz/rep%6fs'],
      ['an encoded slash splits the segment even next to a malformed escape', '/v1/integrations/codehost/%zz%2F/repos'],
      ['invalid UTF-8 in one segment, an escaped UUID in the next', '/v1/integrations/%C0%AF/{escaped}/repos'],
      ['invalid UTF-8 in the id is replaced, not kept as escapes', '/v1/integrations/codehost/%FF/repos'],
      ['a NUL in the code-host name is just another name', '/v1/integrations/github%00/{github}/repos'],
      ['a byte-order mark is a character of the id', '/v1/integrations/codehost/%EF%BB%BF/repos'],
      ['a braced, partly escaped id', '/v1/integrations/github/%7B{github}%7D/repos'],
    ])('%s: %s', async (_name, template) => {
      const id = (name: string) => demo.doc.integrations.find((i) => i.name === name)!.id;
      const escaped = `%${id('acme-corp').charCodeAt(0).toString(16)}${id('acme-corp').slice(1)}`;
      await checkRepositoryPath(template.replace('{github}', id('acme-corp')).replace('{escaped}', escaped));
    });
  });
});
