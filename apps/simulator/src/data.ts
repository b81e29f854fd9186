/**
 * Reads the BDEW load profile tables shipped in `apps/simulator/data/` (see its README for the
 * source and licence). The files are read once per process and cached; this is the only file
 * I/O of the physics.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type BdewProfile, type BdewProfileName, parseBdewCsv } from './model/load';

const cache = new Map<BdewProfileName, BdewProfile>();

/** The parsed G25 (commercial) or H25 (household) profile. */
export function bdewProfile(name: BdewProfileName): BdewProfile {
  let p = cache.get(name);
  if (!p) {
    const file = fileURLToPath(new URL(`../data/${name.toLowerCase()}.csv`, import.meta.url));
    p = parseBdewCsv(readFileSync(file, 'utf8'), name);
    cache.set(name, p);
  }
  return p;
}
