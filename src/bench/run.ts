// `npm run bench`'s entry: the server's GC settings first (see src/main.ts), then the benchmark.
import { tuneGarbageCollector } from '../util/gc-tuning.js';

tuneGarbageCollector();
await import('./cli.js');
