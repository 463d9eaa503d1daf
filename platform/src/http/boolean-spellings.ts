/**
 * How a boolean is spelled where it travels as text: a form field or a query parameter
 * (docs/http.md). One set for both, so `include_deactivated=on` means what a form's `on`
 * means. Any case, surrounding spaces ignored.
 */
export const trueSpellings = ['true', '1', 'yes', 'on'] as const;
export const falseSpellings = ['false', '0', 'no', 'off'] as const;

const truthy: ReadonlySet<string> = new Set(trueSpellings);
const falsy: ReadonlySet<string> = new Set(falseSpellings);

/** The boolean a text spells; undefined when it spells none. */
export function booleanFromText(text: string): boolean | undefined {
  const spelled = text.trim().toLowerCase();
  if (truthy.has(spelled)) return true;
  if (falsy.has(spelled)) return false;
  return undefined;
}
