// Scalars from graphql-scalars, with descriptions that say what this API puts in them.
import { DateTimeISOResolver, JSONObjectResolver, SafeIntResolver, UUIDResolver } from 'graphql-scalars';
import { builder } from './builder.ts';

builder.addScalarType('DateTime', DateTimeISOResolver, {
  description: 'An instant as an ISO 8601 / RFC 3339 string in UTC, e.g. `2026-01-05T09:00:00.000Z`.',
});
builder.addScalarType('UUID', UUIDResolver, {
  description: 'A UUID in its canonical 8-4-4-4-12 hexadecimal form: the raw identifier the REST API uses.',
});
builder.addScalarType('JSONObject', JSONObjectResolver, {
  description: 'A free-form JSON object whose keys the specification leaves open (labels, Kubernetes volume sources, …).',
});
builder.addScalarType('SafeInt', SafeIntResolver, {
  description: 'A whole number up to ±2^53-1 (larger than Int\'s 32 bits), exact in JSON and JavaScript.',
});
