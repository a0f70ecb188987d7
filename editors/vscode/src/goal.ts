// Checks on a goal typed in the "Fix: describe the problem…" input box. Pure.
// The server has the last word (an empty or meaningless goal is refused there with a message too);
// this only spares a round trip for what is plainly not a description.

const MAX_GOAL_CHARS = 2000;

/** Why `text` cannot be sent as a goal, or undefined when it can. */
export function goalProblem(text: string): string | undefined {
  const goal = text.trim();
  if (goal === "") {
    return "describe the problem in a few words, e.g. \"make line_total match its docstring\"";
  }
  if (!/[\p{L}]{2,}/u.test(goal)) {
    return "the description needs words, e.g. \"line_total(1.0, 10) should be 9.0\"";
  }
  if (goal.length > MAX_GOAL_CHARS) {
    return `the description is ${goal.length} characters; keep it under ${MAX_GOAL_CHARS}`;
  }
  return undefined;
}
