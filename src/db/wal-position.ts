// A position in the primary's write-ahead log (PostgreSQL's pg_lsn, written `16/B374D848`), as a number that
// compares as positions do: the text does not (`0/FFFFFFFF` comes after `1/0` as text).

export type WalPosition = bigint;

/** Beyond every position: a caller whose last write cannot be placed reads from the primary. */
export const UNKNOWN_WAL_POSITION: WalPosition = (1n << 64n) - 1n;

export function parseWalPosition(text: string): WalPosition {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(text);
  if (!match) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

export function formatWalPosition(position: WalPosition): string {
  return `${(position >> 32n).toString(16).toUpperCase()}/${(position & 0xFFFFFFFFn).toString(16).toUpperCase()}`;
}

/** Sixteen hex digits: compares as text as the positions do (kept in Redis, sent between processes). */
export function sortableWalPosition(position: WalPosition): string {
  return position.toString(16).toUpperCase().padStart(16, '0');
}

export function fromSortableWalPosition(text: string): WalPosition {
  return BigInt(`0x${text}`);
}
