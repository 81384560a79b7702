// The TPC-H distributions (dists.dss of the specification's dbgen): value lists with weights.
// A weighted pick draws r in [0, totalWeight - 1] and takes the value whose cumulative weight
// range holds r, so each distribution is precomputed as a table from r to the value's position.

import type { RandomStream } from './rng.js';

export class Distribution {
  readonly values: readonly string[];
  /** Each value's own weight as written in dists.dss (nations: signed region adjustments). */
  readonly weights: readonly number[];
  /** Running sum of weights per value (for nations this is the region key). */
  readonly cumulative: Int32Array;
  /** r in [0, totalWeight) → position of the value picked; empty for non-distributions. */
  private readonly pickTable: Int32Array;
  readonly totalWeight: number;
  /** Each value as ASCII bytes, for writing text without re-encoding. */
  readonly bytes: readonly Uint8Array[];

  constructor(
    readonly name: string,
    entries: readonly (readonly [string, number])[],
  ) {
    this.values = entries.map((e) => e[0]);
    this.weights = entries.map((e) => e[1]);
    this.cumulative = new Int32Array(entries.length);
    let running = 0;
    let valid = true;
    for (let i = 0; i < entries.length; i++) {
      running += entries[i][1];
      this.cumulative[i] = running;
      if (entries[i][1] <= 0) valid = false;
    }
    this.totalWeight = valid ? running : -1;
    this.pickTable = new Int32Array(valid ? running : 0);
    if (valid) {
      let at = 0;
      for (let i = 0; i < entries.length; i++) {
        for (let k = 0; k < entries[i][1]; k++) this.pickTable[at++] = i;
      }
    }
    this.bytes = this.values.map((v) => Buffer.from(v, 'latin1'));
  }

  get size(): number {
    return this.values.length;
  }

  /** The position of a weighted random value; consumes one seed of `rng`. */
  pick(rng: RandomStream): number {
    return this.pickTable[rng.nextInt(0, this.totalWeight - 1)];
  }
}

type Entries = readonly (readonly [string, number])[];

function ones(values: readonly string[]): Entries {
  return values.map((v) => [v, 1] as const);
}

const P_TYPE_SYLLABLE1 = ['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'];
const P_TYPE_SYLLABLE2 = ['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'];
const P_TYPE_SYLLABLE3 = ['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER'];
const P_CNTR_SYLLABLE1 = ['SM', 'LG', 'MED', 'JUMBO', 'WRAP'];
const P_CNTR_SYLLABLE2 = ['CASE', 'BOX', 'BAG', 'JAR', 'PACK', 'PKG', 'CAN', 'DRUM'];

// p_types and p_cntr list every combination, in this order, each with weight 1.
const partTypes: string[] = [];
for (const a of P_TYPE_SYLLABLE1) for (const b of P_TYPE_SYLLABLE2) for (const c of P_TYPE_SYLLABLE3) partTypes.push(`${a} ${b} ${c}`);
const partContainers: string[] = [];
for (const a of P_CNTR_SYLLABLE1) for (const b of P_CNTR_SYLLABLE2) partContainers.push(`${a} ${b}`);

export const PART_TYPES = new Distribution('p_types', ones(partTypes));
export const PART_CONTAINERS = new Distribution('p_cntr', ones(partContainers));

export const PART_COLORS = new Distribution(
  'colors',
  ones(
    (
      'almond antique aquamarine azure beige bisque black blanched blue blush brown burlywood burnished ' +
      'chartreuse chiffon chocolate coral cornflower cornsilk cream cyan dark deep dim dodger drab firebrick ' +
      'floral forest frosted gainsboro ghost goldenrod green grey honeydew hot indian ivory khaki lace lavender ' +
      'lawn lemon light lime linen magenta maroon medium metallic midnight mint misty moccasin navajo navy olive ' +
      'orange orchid pale papaya peach peru pink plum powder puff purple red rose rosy royal saddle salmon sandy ' +
      'seashell sienna sky slate smoke snow spring steel tan thistle tomato turquoise violet wheat white yellow'
    ).split(' '),
  ),
);

export const SHIP_INSTRUCTIONS = new Distribution(
  'instruct',
  ones(['DELIVER IN PERSON', 'COLLECT COD', 'TAKE BACK RETURN', 'NONE']),
);
export const MARKET_SEGMENTS = new Distribution(
  'msegmnt',
  ones(['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'HOUSEHOLD', 'MACHINERY']),
);
/** Weights are adjustments whose running sum is the nation's region key (not a distribution). */
export const NATIONS = new Distribution('nations', [
  ['ALGERIA', 0],
  ['ARGENTINA', 1],
  ['BRAZIL', 0],
  ['CANADA', 0],
  ['EGYPT', 3],
  ['ETHIOPIA', -4],
  ['FRANCE', 3],
  ['GERMANY', 0],
  ['INDIA', -1],
  ['INDONESIA', 0],
  ['IRAN', 2],
  ['IRAQ', 0],
  ['JAPAN', -2],
  ['JORDAN', 2],
  ['KENYA', -4],
  ['MOROCCO', 0],
  ['MOZAMBIQUE', 0],
  ['PERU', 1],
  ['CHINA', 1],
  ['ROMANIA', 1],
  ['SAUDI ARABIA', 1],
  ['VIETNAM', -2],
  ['RUSSIA', 1],
  ['UNITED KINGDOM', 0],
  ['UNITED STATES', -2],
]);
export const REGIONS = new Distribution('regions', ones(['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST']));
export const ORDER_PRIORITIES = new Distribution(
  'o_oprio',
  ones(['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW']),
);
export const RETURN_FLAGS = new Distribution('rflag', ones(['R', 'A']));
export const SHIP_MODES = new Distribution('smode', ones(['REG AIR', 'AIR', 'RAIL', 'TRUCK', 'MAIL', 'FOB', 'SHIP']));

// Pseudo-text distributions: the vocabulary and grammar of every comment.

export const NOUNS = new Distribution('nouns', [
  ['packages', 40],
  ['requests', 40],
  ['accounts', 40],
  ['deposits', 40],
  ['foxes', 20],
  ['ideas', 20],
  ['theodolites', 20],
  ['pinto beans', 20],
  ['instructions', 20],
  ['dependencies', 10],
  ['excuses', 10],
  ['platelets', 10],
  ['asymptotes', 10],
  ['courts', 5],
  ['dolphins', 5],
  ...ones(
    (
      'multipliers sauternes warthogs frets dinos attainments somas Tiresias patterns forges braids frays ' +
      'warhorses dugouts notornis epitaphs pearls tithes waters orbits gifts sheaves depths sentiments decoys ' +
      'realms pains grouches escapades'
    ).split(' '),
  ),
  ['hockey players', 1],
]);

export const VERBS = new Distribution('verbs', [
  ['sleep', 20],
  ['wake', 20],
  ['are', 20],
  ['cajole', 20],
  ['haggle', 20],
  ['nag', 10],
  ['use', 10],
  ['boost', 10],
  ['affix', 5],
  ['detect', 5],
  ['integrate', 5],
  ...ones(
    (
      'maintain nod was lose sublate solve thrash promise engage hinder print x-ray breach eat grow impress ' +
      'mold poach serve run dazzle snooze doze unwind kindle play hang believe doubt'
    ).split(' '),
  ),
]);

export const ADVERBS = new Distribution('adverbs', [
  ['sometimes', 1],
  ['always', 1],
  ['never', 1],
  ['furiously', 50],
  ['slyly', 50],
  ['carefully', 50],
  ['blithely', 40],
  ['quickly', 30],
  ['fluffily', 20],
  ...ones(
    (
      'slowly quietly ruthlessly thinly closely doggedly daringly bravely stealthily permanently enticingly ' +
      'idly busily regularly finally ironically evenly boldly silently'
    ).split(' '),
  ),
]);

export const ARTICLES = new Distribution('articles', [
  ['the', 50],
  ['a', 20],
  ['an', 5],
]);

export const PREPOSITIONS = new Distribution('prepositions', [
  ['about', 50],
  ['above', 50],
  ['according to', 50],
  ['across', 50],
  ['after', 50],
  ['against', 40],
  ['along', 40],
  ['alongside of', 30],
  ['among', 30],
  ['around', 20],
  ['at', 10],
  ...ones([
    'atop',
    'before',
    'behind',
    'beneath',
    'beside',
    'besides',
    'between',
    'beyond',
    'by',
    'despite',
    'during',
    'except',
    'for',
    'from',
    'in place of',
    'inside',
    'instead of',
    'into',
    'near',
    'of',
    'on',
    'outside',
    'over',
    'past',
    'since',
    'through',
    'throughout',
    'to',
    'toward',
    'under',
    'until',
    'up',
    'upon',
    'whithout',
    'with',
    'within',
  ]),
]);

export const AUXILIARIES = new Distribution(
  'auxillaries',
  ones([
    'do',
    'may',
    'might',
    'shall',
    'will',
    'would',
    'can',
    'could',
    'should',
    'ought to',
    'must',
    'will have to',
    'shall have to',
    'could have to',
    'should have to',
    'must have to',
    'need to',
    'try to',
  ]),
);

export const TERMINATORS = new Distribution('terminators', [
  ['.', 50],
  [';', 1],
  [':', 1],
  ['?', 1],
  ['!', 1],
  ['--', 1],
]);

export const ADJECTIVES = new Distribution('adjectives', [
  ['special', 20],
  ['pending', 20],
  ['unusual', 20],
  ['express', 20],
  ...ones(
    (
      'furious sly careful blithe quick fluffy slow quiet ruthless thin close dogged daring brave stealthy ' +
      'permanent enticing idle busy'
    ).split(' '),
  ),
  ['regular', 50],
  ['final', 40],
  ['ironic', 40],
  ['even', 30],
  ['bold', 20],
  ['silent', 10],
]);

/** Sentences: N = noun phrase, V = verb phrase, P = prepositional phrase, T = terminator. */
export const GRAMMAR = new Distribution('grammar', [
  ['N V T', 3],
  ['N V P T', 3],
  ['N V N T', 3],
  ['N P V N T', 1],
  ['N P V P T', 1],
]);

/** Noun phrases: N = noun, J = adjective, D = adverb (',' joins two adjectives). */
export const NOUN_PHRASES = new Distribution('np', [
  ['N', 10],
  ['J N', 20],
  ['J, J N', 10],
  ['D J N', 50],
]);

/** Verb phrases: V = verb, X = auxiliary, D = adverb. */
export const VERB_PHRASES = new Distribution('vp', [
  ['V', 30],
  ['X V', 1],
  ['V D', 40],
  ['X V D', 1],
]);
