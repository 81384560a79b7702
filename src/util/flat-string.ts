// V8 builds a concatenated string as a rope: a tree of its pieces, each a heap object of its own,
// until something reads it. A string kept for long (an id, a cached answer) is cheaper flat: a
// scavenge copies one object instead of the tree, and after the first it drops the rope's shell.

/** `s`, made one flat string (reading a character flattens a rope in place). */
export function flat(s: string): string {
  s.charCodeAt(0);
  return s;
}
