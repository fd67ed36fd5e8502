// V8 settings for the service process; imported first by src/main.ts, so they apply before anything is served.
//
// No allocation-site pretenuring. V8 watches where objects are made, and a site whose objects it has found
// alive at a scavenge often enough has its objects made in the old generation from then on. A request's
// objects are alive while it runs, so under load sites such as graphql-jit's result lists get pretenured;
// each such list then holds the young objects put into it (the items of a page) through scavenges after the
// request is over, until mark-compact clears the list: they are copied, promoted, and collected again.
// Measured on a page of 100 deployments executed in a loop (`--trace-gc-nvp`): 7-27 MB survived each
// scavenge and scavenges took 6-34 ms; without pretenuring, under 1 KB and 0.2-0.3 ms. Whether V8 pretenures
// a site depends on timing, so runs differ without this; with it they do not.
//
// JSON.stringify's fast path, which V8 made the default in 13.8 (Node 25 has it on): plain data (no toJSON,
// getters or proxies; every answer of ours is plain data) serialized by a loop without the general
// serializer's checks. Node 24's V8 (13.6) has it behind this flag. A REST page of 100 (474 KB) is stringified
// in 570 µs instead of 915 µs, to the same text (docs/performance.md#jsonstringifys-fast-path). The tests run
// with these settings too (vitest.config.ts). Earlier V8s do not know the flag (and would print an error);
// later ones have it on. The fast path is iterative: a value nested tens of thousands deep is serialized where
// the general serializer threw a RangeError (nothing here relies on that error).
import v8 from 'node:v8';

v8.setFlagsFromString('--no-allocation-site-pretenuring');

const [major, minor] = process.versions.v8.split('.').map(Number) as [number, number];
if (major === 13 && minor >= 6 && minor < 8) v8.setFlagsFromString('--json-stringify-fast-path');
