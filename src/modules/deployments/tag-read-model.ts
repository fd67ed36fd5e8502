// The read models of tag keys and values: what their reads return and their GraphQL types resolve from, the
// columns those types read, as PostgreSQL returns them (see common/lean-rows.ts).

export interface TagKeyReadModel {
  id: string;
  key: string;
}

export interface TagValueReadModel {
  id: string;
  tag_key_id: string;
  value: string;
}
