// Worker-thread entry files must be JavaScript: running from dist/ they sit beside their caller;
// tests running the TypeScript sources use the built copy in dist/ (`npm run build` first).

import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built `fileName` in `dist/<folder>/`, for a caller at `callerUrl` (its import.meta.url). */
export function builtEntry(callerUrl: string, folder: string, fileName: string): string {
  const here = dirname(fileURLToPath(callerUrl));
  const sibling = resolve(here, fileName);
  if (existsSync(sibling) && !here.includes(`${'/'}src${'/'}`)) return sibling;
  const built = resolve(here, '../../dist', folder, fileName);
  if (!existsSync(built)) throw new Error(`worker entry not found at ${built}: run \`npm run build\` first`);
  return built;
}
