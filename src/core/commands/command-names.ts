import { editDistance } from './edit-distance.js';
import type { CommandName } from './types.js';

// Order matters twice: it is the order of /help, and it breaks ties between suggestions.
const NAMES = [
  'approve',
  'veto',
  'retry',
  'hold',
  'unhold',
  'cancel',
  'plan',
  'status',
  'help',
] as const satisfies readonly CommandName[];

// Fails to compile when a Command variant is missing from NAMES.
const _complete: [Exclude<CommandName, (typeof NAMES)[number]>] extends [never] ? true : never =
  true;

// Typed as plain strings so callers can ask `COMMAND_NAMES.includes(word)` of any word.
export const COMMAND_NAMES: readonly string[] = NAMES;

const MAX_DISTANCE = 2;
const MIN_SUGGESTIBLE_LENGTH = 3;
const LONGEST_NAME = Math.max(...NAMES.map((name) => name.length));

/** The command called `word` (already lower-cased), if any. */
export function toCommandName(word: string): CommandName | undefined {
  return NAMES.find((name) => name === word);
}

/**
 * The command `word` (lower-cased) is probably a typo of. Short words and far misses get
 * nothing: `/s`, `/tmp` and `/foo` are how people write paths and asides, not commands.
 */
export function suggestCommand(word: string): CommandName | undefined {
  // The distance is at least the length difference, so long words never qualify; this also
  // keeps the quadratic distance off arbitrarily long input.
  if (word.length < MIN_SUGGESTIBLE_LENGTH || word.length > LONGEST_NAME + MAX_DISTANCE) {
    return undefined;
  }
  let best: CommandName | undefined;
  let bestDistance = MAX_DISTANCE + 1;
  for (const name of NAMES) {
    const distance = editDistance(word, name, MAX_DISTANCE);
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}
