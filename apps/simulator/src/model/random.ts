/**
 * Deterministic randomness for the simulator. Every random draw goes through a seeded
 * xoroshiro128+ generator from `pure-rand`; there is no `Math.random` anywhere in the
 * simulator. The generator's state is a plain `number[]`, so a site's state (including where
 * its random sequence stands) is a serialisable value and `step` stays a pure function: it
 * rebuilds the generator from the state, draws, and returns the advanced state.
 */
import { xoroshiro128plus, xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';

/** 32-bit FNV-1a hash of a string (used to derive per-site / per-purpose seeds). */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** MurmurHash3's 32-bit finaliser: a bijection that spreads every input bit over the output. */
function fmix32(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** A seed derived from a fleet seed and a label, e.g. `deriveSeed(1, 'SHC001/cells')`. */
export function deriveSeed(seed: number, label: string): number {
  return (hash32(`${seed}|${label}`) ^ Math.imul(seed | 0, 0x9e3779b1)) >>> 0;
}

/** A small, mutable wrapper around a pure-rand generator with the distributions we need. */
export class Rng {
  private readonly gen: ReturnType<typeof xoroshiro128plus>;

  private constructor(gen: ReturnType<typeof xoroshiro128plus>) {
    this.gen = gen;
  }

  /**
   * A generator from a 32-bit seed. The seed is first scrambled (MurmurHash3's 32-bit
   * finaliser): xoroshiro128+ seeded with nearby values starts with nearly equal outputs, and
   * seeds derived from consecutive labels (`day/20680`, `day/20681`) are nearby.
   */
  static fromSeed(seed: number): Rng {
    return new Rng(xoroshiro128plus(fmix32(seed)));
  }

  static fromState(state: readonly number[]): Rng {
    return new Rng(xoroshiro128plusFromState(state));
  }

  /** The generator's state, to store in a site state. */
  state(): number[] {
    return [...this.gen.getState()];
  }

  /** Uniform in [0, 1). */
  float(): number {
    const hi = (this.gen.next() >>> 0) / 0x1_0000_0000;
    const lo = (this.gen.next() >>> 0) / 0x1_0000_0000 / 0x1_0000_0000;
    return hi + lo;
  }

  /** Uniform in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.float();
  }

  /** Integer uniform in [min, max] (both included). */
  int(min: number, max: number): number {
    return Math.min(max, min + Math.floor(this.float() * (max - min + 1)));
  }

  /** Standard normal (Box–Muller), mean 0, standard deviation 1. */
  normal(): number {
    const u = 1 - this.float();
    const v = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.float() < p;
  }
}

/**
 * One step of a first-order autoregressive (Ornstein–Uhlenbeck) process: mean-reverting noise
 * with time constant `tauS` (s) and stationary standard deviation `sigma`. Independent of the
 * step length, so a series looks alike at any `dtS`.
 */
export function ouStep(rng: Rng, x: number, dtS: number, tauS: number, sigma: number): number {
  const a = Math.exp(-dtS / tauS);
  return a * x + sigma * Math.sqrt(1 - a * a) * rng.normal();
}
