// Entry point. The server's GC settings go in before anything else is loaded: V8 reads its flags
// when a collection starts, and changing them while one is under way is unsafe (Node's docs warn
// of crashes). A fresh isolate has not started one yet; the rest of the server loads after.
import { tuneGarbageCollector } from './util/gc-tuning.js';

tuneGarbageCollector();
await import('./cli.js');
