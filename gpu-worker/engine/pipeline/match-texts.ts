/**
 * Which text lines a customer's `texts` name. OCR slips a character here and there and captions
 * wrap over lines, so a line matches a wanted text when it is, within a few edits, a piece of it
 * (a wrapped caption's line) or contains it (a longer line around it).
 */
export function normaliseText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "");
}

/** Fewest edits that turn `needle` into some substring of `haystack` (Sellers' algorithm). */
export function substringDistance(needle: string, haystack: string): number {
  let previous = new Array<number>(haystack.length + 1).fill(0);
  for (let i = 1; i <= needle.length; i++) {
    const current = new Array<number>(haystack.length + 1);
    current[0] = i;
    for (let j = 1; j <= haystack.length; j++) {
      const substitution = (previous[j - 1] as number) + (needle[i - 1] === haystack[j - 1] ? 0 : 1);
      current[j] = Math.min(substitution, (previous[j] as number) + 1, (current[j - 1] as number) + 1);
    }
    previous = current;
  }
  return Math.min(...previous);
}

/** Edits tolerated for a text of this length: about one in five characters, at least one. */
function tolerance(length: number): number {
  return Math.max(1, Math.floor(length * 0.2));
}

const MIN_LINE_CHARACTERS = 2;

export function lineMatches(line: string, wanted: readonly string[]): boolean {
  const text = normaliseText(line);
  if (text.length < MIN_LINE_CHARACTERS) return false;
  return wanted.map(normaliseText).some((target) => {
    if (target.length === 0) return false;
    if (text.length <= target.length) return substringDistance(text, target) <= tolerance(text.length);
    return substringDistance(target, text) <= tolerance(target.length);
  });
}
