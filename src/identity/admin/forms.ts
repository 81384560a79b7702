// Form bodies: application/x-www-form-urlencoded and multipart/form-data (the admin client sends
// FormData for invitations, key uploads and localization files).
import type { HttpRequest } from '../../http/types.js';
import { errorMessage } from '../errors.js';

export interface FormPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

export class Form {
  constructor(readonly parts: FormPart[]) {}
  get(name: string): string | undefined {
    const p = this.parts.find((x) => x.name === name);
    return p ? p.data.toString('utf8') : undefined;
  }
  file(name?: string): FormPart | undefined {
    return this.parts.find((x) => (name === undefined ? x.filename !== undefined : x.name === name));
  }
}

export function parseForm(req: HttpRequest): Form {
  const ct = req.headers['content-type'] ?? '';
  if (ct.startsWith('application/x-www-form-urlencoded')) {
    return new Form([...new URLSearchParams(req.body.toString('utf8'))].map(([name, v]) => ({ name, data: Buffer.from(v, 'utf8') })));
  }
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(ct);
  if (!ct.startsWith('multipart/form-data') || !m) throw errorMessage(400, 'Expected a form body (multipart/form-data or application/x-www-form-urlencoded)');
  const boundary = Buffer.from(`--${m[1] ?? m[2]}`);
  const body = req.body;
  const parts: FormPart[] = [];
  let pos = body.indexOf(boundary);
  while (pos >= 0) {
    pos += boundary.length;
    if (body.subarray(pos, pos + 2).toString() === '--') break;
    if (body.subarray(pos, pos + 2).toString() === '\r\n') pos += 2;
    const headEnd = body.indexOf('\r\n\r\n', pos);
    if (headEnd < 0) break;
    const head = body.subarray(pos, headEnd).toString('utf8');
    const next = body.indexOf(boundary, headEnd + 4);
    if (next < 0) break;
    const data = body.subarray(headEnd + 4, next - 2);
    const name = /name="([^"]*)"/i.exec(head)?.[1] ?? '';
    const filename = /filename="([^"]*)"/i.exec(head)?.[1];
    const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1];
    parts.push({ name, data: Buffer.from(data), ...(filename !== undefined ? { filename } : {}), ...(type ? { contentType: type } : {}) });
    pos = next;
  }
  return new Form(parts);
}
