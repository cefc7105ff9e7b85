/**
 * The k-th smallest (from 0) of values[0..count), which must hold no NaN: the value a full sort would
 * put at k, found by quickselect in linear time on average. Reorders values[0..count). The ring
 * check takes a median for every source and every fit, thousands of times a clip, and sorting for
 * it took a few percent of the engine's time.
 */
export function kthSmallest(values: Float32Array, count: number, k: number): number {
  if (!(k >= 0 && k < count && count <= values.length)) {
    throw new RangeError(`No element ${k} among ${count} values.`);
  }
  let left = 0;
  let right = count - 1;
  while (left < right) {
    // Median of three as the pivot, so sorted or constant runs do not go quadratic.
    const pivot = middleOfThree(
      values[left] as number,
      values[(left + right) >> 1] as number,
      values[right] as number,
    );
    // Hoare partition: afterwards [left, j] <= pivot, [i, right] >= pivot, and (j, i) equals it.
    let i = left;
    let j = right;
    while (i <= j) {
      while ((values[i] as number) < pivot) i += 1;
      while ((values[j] as number) > pivot) j -= 1;
      if (i <= j) {
        const swap = values[i] as number;
        values[i] = values[j] as number;
        values[j] = swap;
        i += 1;
        j -= 1;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return pivot;
  }
  return values[k] as number;
}

function middleOfThree(a: number, b: number, c: number): number {
  return Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
}
