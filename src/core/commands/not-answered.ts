/**
 * Ends the outcome of a refusal recorded but not answered: a person without write access gets
 * one refusal reply per issue an hour (docs/commands.md, "Answers"), and the store tells the
 * refusals that were answered by this ending.
 */
export const NOT_ANSWERED = ' [not answered: one reply per person and issue an hour]';
