// Trino's url_extract_* functions: the parts of a URL as java.net.URI reads them, raw (not
// percent-decoded), split by RFC 3986's reference regular expression; NULL for a part that is not
// there (and for text that is not a URL with that part).

/** RFC 3986, appendix B: scheme, authority, path, query, fragment. */
const URL_PARTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/su;

interface UrlParts {
  readonly scheme: string | undefined;
  readonly authority: string | undefined;
  readonly path: string;
  readonly query: string | undefined;
  readonly fragment: string | undefined;
}

function parts(url: string): UrlParts | null {
  // java.net.URI refuses spaces and control characters anywhere.
  if (/[\s\x00-\x1f]/u.test(url)) return null;
  const m = URL_PARTS.exec(url);
  if (!m) return null;
  return { scheme: m[1], authority: m[2], path: m[3] ?? '', query: m[4], fragment: m[5] };
}

/** The authority's host and port (after any user info; an IPv6 host keeps its brackets). */
function hostAndPort(authority: string): { host: string; port: string | undefined } {
  const afterUser = authority.slice(authority.lastIndexOf('@') + 1);
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/u.exec(afterUser);
  return m ? { host: m[1] ?? '', port: m[2] || undefined } : { host: afterUser, port: undefined };
}

export function urlExtractProtocol(url: string): string | null {
  return parts(url)?.scheme ?? null;
}

export function urlExtractHost(url: string): string | null {
  const authority = parts(url)?.authority;
  if (authority === undefined) return null;
  const { host } = hostAndPort(authority);
  return host === '' ? null : host;
}

export function urlExtractPort(url: string): number | null {
  const authority = parts(url)?.authority;
  if (authority === undefined) return null;
  const { port } = hostAndPort(authority);
  return port === undefined ? null : Number(port);
}

export function urlExtractPath(url: string): string | null {
  const p = parts(url);
  return p === null ? null : p.path;
}

export function urlExtractQuery(url: string): string | null {
  return parts(url)?.query ?? null;
}

export function urlExtractFragment(url: string): string | null {
  return parts(url)?.fragment ?? null;
}

/** The first value of the query parameter `name` (a parameter without `=` has the value ''). */
export function urlExtractParameter(url: string, name: string): string | null {
  const query = parts(url)?.query;
  if (query === undefined) return null;
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    if (key === name) return eq < 0 ? '' : pair.slice(eq + 1);
  }
  return null;
}
