// Scalars from graphql-scalars, with descriptions that say what this API puts in them.
import { DateTimeISOResolver, JSONObjectResolver, JSONResolver, SafeIntResolver, UUIDResolver } from 'graphql-scalars';
import { GraphQLScalarType } from 'graphql';
import { builder } from './builder.ts';
import { isoDateTime } from './iso-date-time.ts';

// A valid Date is written by isoDateTime (toISOString's text, faster); anything else is left to graphql-scalars.
const serializeDateTime = (value: unknown) =>
  (value instanceof Date && !Number.isNaN(value.getTime()) ? isoDateTime(value) : DateTimeISOResolver.serialize(value));

builder.addScalarType('DateTime', new GraphQLScalarType({ ...DateTimeISOResolver.toConfig(), serialize: serializeDateTime }), {
  description: 'An instant as an ISO 8601 / RFC 3339 string in UTC, e.g. `2026-01-05T09:00:00.000Z`.',
});
// Every id this API answers with is canonical (PostgreSQL's uuid text): those are passed through after one test
// of a regular expression made once; anything else is left to graphql-scalars (its answer or its error). Its own
// serialize makes a new global regular expression per value: a page of 100 records answers about 500 ids.
const CANONICAL_UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const serializeUUID = (value: unknown) => (typeof value === 'string' && CANONICAL_UUID.test(value) ? value : UUIDResolver.serialize(value));

builder.addScalarType('UUID', new GraphQLScalarType({ ...UUIDResolver.toConfig(), serialize: serializeUUID }), {
  description: 'A UUID in its canonical 8-4-4-4-12 hexadecimal form: the raw identifier the REST API uses.',
});
builder.addScalarType('JSONObject', JSONObjectResolver, {
  description: 'A free-form JSON object whose keys the specification leaves open (labels, Kubernetes volume sources, …).',
});
builder.addScalarType('JSON', JSONResolver, {
  description: 'Any JSON value (the value an input problem refers to, as it was sent).',
});
builder.addScalarType('SafeInt', SafeIntResolver, {
  description: 'A whole number up to ±2^53-1 (larger than Int\'s 32 bits), exact in JSON and JavaScript.',
});
