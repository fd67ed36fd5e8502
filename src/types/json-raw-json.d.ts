// JSON.rawJSON (TC39 "JSON.parse source text access", shipped in Node 21+) is not in TypeScript's lib yet.
interface JSON {
  rawJSON(text: string): unknown;
}
