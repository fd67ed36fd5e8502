// The offset pages of the REST listings (GET /v2/deployments, GET /v2/deployments/{id}/revisions): the same
// `limit` and `offset` parameters, and the same `offset` in the answer (docs/decisions.md#offset-pagination).
import { MAX_PAGE_SIZE } from '../graphql/paging.ts';
import type { ParameterSpec, ParameterValue } from './parameters.ts';

const GRAPHQL_INT_MAX = 2_147_483_647n;

export const pageParameters: ParameterSpec[] = [
  { name: 'limit', in: 'query', kind: 'int', default: 20, ge: 1, le: MAX_PAGE_SIZE, description: 'Maximum number of resources to return.' },
  { name: 'offset', in: 'query', kind: 'int', default: 0, ge: 0, description: 'Pagination offset; pass the returned offset to fetch the next page.' },
];

/** The page's GraphQL arguments. No list has 2^31 rows: a larger offset is past the end, and GraphQL's Int stops there. */
export const pageVariables = (values: Record<string, ParameterValue>) => ({
  limit: Number(values.limit),
  offset: Number((values.offset as bigint) > GRAPHQL_INT_MAX ? GRAPHQL_INT_MAX : values.offset),
});

/** The answer's `offset`: the page's; past the end the request's, exactly as sent even beyond what a JS number holds. */
export function nextOffset(values: Record<string, ParameterValue>, pageOffset: number): unknown {
  const requested = values.offset as bigint;
  return requested > GRAPHQL_INT_MAX ? JSON.rawJSON(requested.toString()) : pageOffset;
}
