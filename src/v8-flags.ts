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
import v8 from 'node:v8';

v8.setFlagsFromString('--no-allocation-site-pretenuring');
