/**
 * Ends the outcome of a refusal recorded but not answered: refusal replies have a budget
 * (refusal-replies.ts, docs/commands.md "Answers"), and the store tells the refusals that were
 * answered by this ending.
 */
export const NOT_ANSWERED = ' [not answered: over the budget of refusal replies]';
