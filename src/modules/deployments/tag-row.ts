// Tag keys and values as the read path serves them (their read model): the columns the GraphQL types read,
// as PostgreSQL returns them (see common/lean-rows.ts).

export interface TagKeyRow {
  id: string;
  key: string;
}

export interface TagValueRow {
  id: string;
  tag_key_id: string;
  value: string;
}

/** A tag value of a deployment (the pivot's deployment beside the value's columns). */
export interface DeploymentTagValueRow extends TagValueRow {
  deployment_id: string;
}
