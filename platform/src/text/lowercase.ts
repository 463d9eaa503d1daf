/**
 * Text lowercased as PostgreSQL's `lower()` does (libc or ICU alike for these): one code point
 * at a time, each to its simple lowercase. JavaScript's `toLowerCase()` differs in two ways
 * that made searches miss: a capital sigma at the end of a word becomes the final `ς`, where
 * PostgreSQL gives `σ`, and `İ` becomes two code points (`i` and a combining dot), where
 * PostgreSQL gives `i`. Search text is lowercased by PostgreSQL when written (the assets'
 * `search_text`, `lower(title)`), so a search's text must be lowercased the same way.
 */
export function lowercaseAsPostgres(text: string): string {
  let lowered = '';
  for (const character of text) {
    const lower = character.toLowerCase();
    lowered += lower.length === character.length ? lower : String.fromCodePoint(lower.codePointAt(0) ?? 0);
  }
  return lowered;
}
