// The shared reference material's location; the lookup lives in src/fuzz/shared.ts (the fuzzer uses it too).
export { SHARED_DIR, SHARED_TPCH } from '../../src/fuzz/shared.js';
