/**
 * The text both search indexes hold for a message, as one SQL expression so the
 * view the indexes read, the triggers that un-index rows and the search that
 * scores candidates all agree byte for byte (external-content FTS5 requires the
 * exact indexed text to delete a row).
 *
 * It is the message content, the tool name, then each tool call's function
 * name and arguments — unwrapped from the call envelope so that `"id"`,
 * `"type"`, `"function"` and `"arguments"` do not match every tool call.
 *
 * The calls are read with json_extract at fixed indexes, nested so a message
 * with n calls costs n+1 length checks and 2n extracts, because json_each
 * cannot be used here: FTS5 reads the view as `main.<view>`, and SQLite then
 * resolves json_each as `main.json_each`, which does not exist. Calls past
 * MAX_INDEXED_CALLS in one message are not indexed (the agent runs at most 8
 * in parallel).
 */
export const MAX_INDEXED_CALLS = 16;

function callsFrom(tc: string, i: number): string {
  if (i >= MAX_INDEXED_CALLS) return `''`;
  const call = `COALESCE(json_extract(${tc}, '$[${i}].function.name') || ' ' || json_extract(${tc}, '$[${i}].function.arguments') || ' ', '')`;
  return `CASE WHEN json_array_length(${tc}) > ${i} THEN ${call} || ${callsFrom(tc, i + 1)} ELSE '' END`;
}

export function ftsTextSql(row: string): string {
  const tc = `${row}.tool_calls`;
  const calls = `CASE WHEN ${tc} IS NULL THEN '' WHEN json_valid(${tc}) AND json_type(${tc}) = 'array' THEN ${callsFrom(tc, 0)} ELSE ${tc} END`;
  return `COALESCE(${row}.content, '') || ' ' || COALESCE(${row}.tool_name, '') || ' ' || ${calls}`;
}

/**
 * The trigram index holds at most this many characters of a message: it costs
 * one posting per character, and substring search is for identifiers, paths
 * and CJK text, not for the middle of a 200 kB tool output (the word index
 * still covers all of it).
 */
export const TRIGRAM_MAX_CHARS = 8192;

export function trigramTextSql(row: string): string {
  return `substr(${ftsTextSql(row)}, 1, ${TRIGRAM_MAX_CHARS})`;
}
