// What a read is asked to return, so that it reads no more than will be shown: a dashboard listing `uuid name
// status` must not read a 3.6 KB jsonb resource spec per row. The GraphQL layer works it out from a query's
// selection (once per document) and hands it to the domain as plain data: repositories and loaders know
// nothing of GraphQL.

/**
 * The columns of a row a read must return, as the read model names them: `column`, or `column.key` for one
 * top-level key of a jsonb column (`column.` alone: only whether the column is null). Undefined: every column.
 * The repository adds what it always reads itself (the id, the listing's order).
 */
export type SelectedColumns = readonly string[] | undefined;

/** What is shown of each row of a read: its columns, and the relations shown with it. */
export interface Selection {
  readonly columns: SelectedColumns;
  /** Of the relations the caller asked about, those shown, by name, each with what is shown of it. */
  readonly relations: { readonly [relation: string]: Selection | undefined };
}
