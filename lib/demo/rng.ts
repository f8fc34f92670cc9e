/**
 * Seeded randomness for the demo data set: the same numbers on every machine and JS engine, so
 * the data set is the same everywhere. Change the content of the data, never the seeds.
 */
export type Rng = {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy (Fisher–Yates: Array#sort with a random comparator differs between engines). */
  shuffled<T>(items: readonly T[]): T[];
};

/** mulberry32: tiny, fast and identical on every JS engine (32-bit integer maths only). */
export const createRng = (seed: number): Rng => {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (probability) => next() < probability,
    pick: <T>(items: readonly T[]): T => {
      const item = items[int(0, items.length - 1)];
      if (item === undefined) throw new Error("pick() from an empty list");
      return item;
    },
    shuffled: <T>(items: readonly T[]): T[] => {
      const copy = [...items];
      for (let index = copy.length - 1; index > 0; index -= 1) {
        const other = int(0, index);
        const current = copy[index];
        const swapped = copy[other];
        if (current === undefined || swapped === undefined) continue;
        copy[index] = swapped;
        copy[other] = current;
      }
      return copy;
    },
  };
};

// One seed per section, so that editing the events does not reshuffle every follower.
export const SEEDS = { events: 0x5eed_0001, followers: 0x5eed_0002, publications: 0x5eed_0003 } as const;

export const at = <T>(items: readonly T[], index: number): T => {
  const item = items[index];
  if (item === undefined) throw new Error(`No item at index ${index}`);
  return item;
};
