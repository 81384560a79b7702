// Text of a peer address as uWS hands it over in binary (4 bytes IPv4, 16 bytes IPv6): cheaper than
// its text variant plus a decode, and read on every statement POST (the query records its client).

/** Dotted IPv4; IPv6 in RFC 5952 form; an IPv4-mapped IPv6 address as its IPv4 part. */
export function addressText(bytes: Uint8Array): string {
  if (bytes.length === 4) return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
  if (bytes.length !== 16) return '';
  if (isV4Mapped(bytes)) return `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i]! << 8) | bytes[i + 1]!);
  // The longest run of two or more zero groups (the first of equal ones) becomes "::".
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (from: number, to: number): string => groups.slice(from, to).map((g) => g.toString(16)).join(':');
  if (bestStart < 0) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLength, 8)}`;
}

function isV4Mapped(b: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}
