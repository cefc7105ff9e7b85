export interface DecodedText {
  text: string;
  /** Mean probability of the kept characters; 0 when nothing was read. */
  confidence: number;
  /** Each kept character: where it was read along the strip and how sure the model was of it. */
  glyphs: Glyph[];
}

export interface Glyph {
  /** The centre of its time step, as a share of the strip's length (0 at its start, 1 at its end). */
  along: number;
  probability: number;
}

/**
 * The model's classes from its dictionary file (one character a line): class 0 is the CTC blank, then the
 * file's characters, then a space, as PaddleOCR builds it with use_space_char.
 */
export function classCharacters(dictionary: string): string[] {
  const lines = dictionary.split("\n").map((line) => line.replace(/\r$/, ""));
  if (lines.at(-1) === "") lines.pop();
  return ["", ...lines, " "];
}

/**
 * Greedy CTC: the best class per time step, repeats merged, blanks dropped. `stripSteps`: how many of
 * the `steps` the strip itself spans (the rest is padding to the batch's width).
 */
export function ctcGreedyDecode(
  probabilities: Float32Array,
  steps: number,
  characters: string[],
  offset = 0,
  stripSteps = steps,
): DecodedText {
  const classes = characters.length;
  let text = "";
  let probabilitySum = 0;
  let kept = 0;
  let previous = 0;
  const glyphs: Glyph[] = [];
  for (let step = 0; step < steps; step++) {
    const row = offset + step * classes;
    let best = 0;
    let bestProbability = probabilities[row] ?? 0;
    for (let index = 1; index < classes; index++) {
      const probability = probabilities[row + index] ?? 0;
      if (probability > bestProbability) [best, bestProbability] = [index, probability];
    }
    if (best !== 0 && best !== previous) {
      text += characters[best] ?? "";
      glyphs.push({ along: (step + 0.5) / stripSteps, probability: bestProbability });
      probabilitySum += bestProbability;
      kept++;
    }
    previous = best;
  }
  return { text, confidence: kept === 0 ? 0 : probabilitySum / kept, glyphs };
}
