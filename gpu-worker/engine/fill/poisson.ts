/**
 * The seam blend's linear solve: terms[k]·c[k] − Σ c[neighbours of k] = fixed[k], per channel, over
 * the masked pixels of a crop, by multigrid V-cycles.
 *
 * Gauss-Seidel alone takes out a pixel's error only as fast as it can talk to its neighbours: across
 * a band hundreds of pixels wide the slow, smooth part of the correction needs thousands of sweeps.
 * Multigrid smooths on the pixel grid, then hands what is left (smooth, so well seen at half
 * resolution) to the same system on a grid of 2x2 cells, and so on down to a handful of cells, where
 * it is cheap to solve. A few V-cycles settle a band that 60 sweeps left moving.
 *
 * The coarse systems are built from the fine one by summing (aggregation): a coarse cell holds the
 * 2x2 pixels under it, its equation is the sum of theirs with the cell's correction taken as one
 * value. That keeps what the neighbour graph says (it is not symmetric: a seen pixel ignores a
 * made-up neighbour) and what the ring says (an offset to follow, or nothing) without knowing why.
 * Summing doubles the equation's scale against the half-resolution Laplacian it stands for, so each
 * coarse system's links are halved (the pull towards the ring's values, which every pixel has on
 * its own, is summed as it is); without that the coarse correction comes back half its size.
 *
 * Seen pixels are solved first and made-up ones after them, as two systems: a 2x2 cell holding a
 * seen pixel and a made-up one would tie the seen pixel to the made-up one it ignores.
 */

/** One grid of the hierarchy: its cells, their equations and where each sits at this resolution. */
interface Level {
  count: number;
  /** Grid columns at this level, and each cell's column and row on it. */
  gridWidth: number;
  column: Int32Array;
  row: Int32Array;
  /** Per cell and direction (left, right, up, down): the neighbour's cell, `count` for none (reads 0). */
  to: Int32Array;
  /** Per cell and direction: how much of the neighbour's value the equation takes. */
  weight: Float32Array;
  /** Per cell: 1 / its diagonal, 0 for a cell with no equation (its value stays 0). */
  inverse: Float32Array;
  diagonal: Float32Array;
  /** Values (3 per cell, plus a zero slot past the last) and the right-hand side (3 per cell). */
  values: Float32Array;
  right: Float32Array;
  /** Per cell: its cell on the next coarser level. */
  parent: Int32Array;
  /**
   * Per cell, three to a cell: the coarse cells beside its parent that prolong reads the correction
   * between (to its side, above or below, at the corner between them), -1 where none holds an
   * equation. Set once the coarser level is built: the same on every cycle.
   */
  besideParent: Int32Array;
}

/** Smoothing sweeps before and after the coarse correction. */
const PRE_SWEEPS = 2;
const POST_SWEEPS = 2;
/** Cells below which a level is solved by sweeps alone (and how many at most). */
const COARSEST = 8;
const COARSEST_SWEEPS = 60;
/** V-cycles at most, and the largest change (levels) of a cycle below which the solve has settled. */
const MAX_CYCLES = 10;
const SETTLED = 0.2;

export interface PoissonSystem {
  /** Crop width, and each cell's crop index (row-major order). */
  width: number;
  pixels: Uint32Array;
  /** Per cell and direction (left, right, up, down): neighbour cell + 1, 0 for none. */
  neighbours: Int32Array;
  terms: Uint8Array;
  /** 3 per cell. */
  fixed: Float32Array;
  /**
   * Per cell: 0 for cells solved first, 1 for cells solved after them (made-up pixels, which follow
   * seen ones that ignore them). Each pass is a system of one kind, coarsened apart from the other:
   * a 2x2 cell that joined a seen pixel to a made-up one would tie the seen one to what it ignores.
   */
  pass: Uint8Array;
}

/** The correction, 3 per cell; a cell with no term keeps 0. */
export function solvePoisson(system: PoissonSystem): Float32Array {
  const { pass } = system;
  const correction = new Float32Array(pass.length * 3);
  for (const kind of [0, 1]) {
    const cells: number[] = [];
    for (let k = 0; k < pass.length; k += 1) if (pass[k] === kind) cells.push(k);
    if (cells.length === 0) continue;
    const levels = [fineLevel(system, cells, correction)];
    for (let level = levels[0] as Level; level.count > COARSEST; ) {
      level = coarser(level);
      levels.push(level);
    }
    for (let cycle = 0; cycle < MAX_CYCLES; cycle += 1) {
      const change = vCycle(levels, 0);
      if (change < SETTLED) break;
    }
    const { values } = levels[0] as Level;
    for (const [local, k] of cells.entries()) {
      for (let c = 0; c < 3; c += 1) correction[k * 3 + c] = values[local * 3 + c] as number;
    }
  }
  return correction;
}

/**
 * The pixel-level system of `cells`; a link to a cell outside them reads its `known` value (solved in
 * an earlier pass, or 0), as does a link to a cell with no equation.
 */
function fineLevel(system: PoissonSystem, cells: number[], known: Float32Array): Level {
  const { width, pixels, neighbours, terms, fixed } = system;
  const count = cells.length;
  const local = new Int32Array(pixels.length).fill(-1);
  for (const [at, k] of cells.entries()) local[k] = at;
  const level = emptyLevel(count, width);
  for (const [at, k] of cells.entries()) {
    const i = pixels[k] as number;
    level.row[at] = Math.floor(i / width);
    level.column[at] = i - (level.row[at] as number) * width;
    level.diagonal[at] = terms[k] as number;
    for (let c = 0; c < 3; c += 1) level.right[at * 3 + c] = fixed[k * 3 + c] as number;
    for (let d = 0; d < 4; d += 1) {
      const neighbour = (neighbours[k * 4 + d] as number) - 1;
      if (neighbour < 0) continue;
      const there = local[neighbour] as number;
      if (there >= 0 && terms[neighbour] !== 0) {
        level.to[at * 4 + d] = there;
        level.weight[at * 4 + d] = 1;
      } else {
        for (let c = 0; c < 3; c += 1)
          level.right[at * 3 + c] =
            (level.right[at * 3 + c] as number) + (known[neighbour * 3 + c] as number);
      }
    }
  }
  finish(level);
  return level;
}

function emptyLevel(count: number, gridWidth: number): Level {
  return {
    count,
    gridWidth,
    column: new Int32Array(count),
    row: new Int32Array(count),
    to: new Int32Array(count * 4).fill(count),
    weight: new Float32Array(count * 4),
    inverse: new Float32Array(count),
    diagonal: new Float32Array(count),
    values: new Float32Array((count + 1) * 3),
    right: new Float32Array(count * 3),
    parent: new Int32Array(count),
    besideParent: new Int32Array(0),
  };
}

function finish(level: Level): void {
  for (let k = 0; k < level.count; k += 1) {
    const diagonal = level.diagonal[k] as number;
    level.inverse[k] = diagonal > 0 ? 1 / diagonal : 0;
  }
}

/** The system on 2x2 cells: each equation the halved sum of the fine equations under the cell. */
function coarser(fine: Level): Level {
  const gridWidth = Math.ceil(fine.gridWidth / 2);
  const key = (k: number) => ((fine.row[k] as number) >> 1) * gridWidth + ((fine.column[k] as number) >> 1);
  // Coarse cells in row-major order (what the sweeps visit), numbered through a map of the grid.
  const rows = ((fine.row[fine.count - 1] as number) >> 1) + 1;
  const slot = new Int32Array(rows * gridWidth).fill(-1);
  for (let k = 0; k < fine.count; k += 1) if ((fine.inverse[k] as number) > 0) slot[key(k)] = 0;
  let count = 0;
  for (let s = 0; s < slot.length; s += 1) if (slot[s] === 0) slot[s] = count++;
  const level = emptyLevel(count, gridWidth);
  for (let s = 0; s < slot.length; s += 1) {
    const cell = slot[s] as number;
    if (cell < 0) continue;
    level.row[cell] = Math.floor(s / gridWidth);
    level.column[cell] = s % gridWidth;
  }
  // The diagonal has two parts: links to neighbours (a Laplacian, whose sum over 2x2 cells is twice
  // the half-resolution one: halved) and anchors, terms that pull towards a known value (the ring's,
  // or 0 from a neighbour with no equation): summed as they are, since each fine pixel keeps its own.
  for (let k = 0; k < fine.count; k += 1) {
    if ((fine.inverse[k] as number) === 0) {
      fine.parent[k] = count;
      continue;
    }
    const cell = slot[key(k)] as number;
    fine.parent[k] = cell;
    let anchor = fine.diagonal[k] as number;
    for (let d = 0; d < 4; d += 1) anchor -= fine.weight[k * 4 + d] as number;
    level.diagonal[cell] = (level.diagonal[cell] as number) + anchor;
  }
  for (let k = 0; k < fine.count; k += 1) {
    const cell = fine.parent[k] as number;
    if (cell === count) continue;
    for (let d = 0; d < 4; d += 1) {
      const weight = fine.weight[k * 4 + d] as number;
      if (weight === 0) continue;
      const there = fine.parent[fine.to[k * 4 + d] as number] as number;
      // A link inside the cell joins two values that are one now: it cancels.
      if (there === cell) continue;
      if (there === count) {
        level.diagonal[cell] = (level.diagonal[cell] as number) + weight;
        continue;
      }
      level.to[cell * 4 + d] = there;
      level.weight[cell * 4 + d] = (level.weight[cell * 4 + d] as number) + weight / 2;
      level.diagonal[cell] = (level.diagonal[cell] as number) + weight / 2;
    }
  }
  finish(level);
  fine.besideParent = besideParents(fine, level, slot);
  return level;
}

/** Level.besideParent of `fine` under `coarse`, whose cells `grid` numbers by position (-1 for none). */
function besideParents(fine: Level, coarse: Level, grid: Int32Array): Int32Array {
  const { gridWidth, inverse } = coarse;
  const rows = grid.length / gridWidth;
  const cellAt = (column: number, row: number) => {
    if (column < 0 || column >= gridWidth || row < 0 || row >= rows) return -1;
    const cell = grid[row * gridWidth + column] as number;
    return cell >= 0 && (inverse[cell] as number) > 0 ? cell : -1;
  };
  const beside = new Int32Array(fine.count * 3).fill(-1);
  for (let k = 0; k < fine.count; k += 1) {
    if (fine.parent[k] === coarse.count) continue;
    const x = fine.column[k] as number;
    const y = fine.row[k] as number;
    const column = x >> 1;
    const row = y >> 1;
    const besideColumn = column + (x & 1 ? 1 : -1);
    const besideRow = row + (y & 1 ? 1 : -1);
    beside[k * 3] = cellAt(besideColumn, row);
    beside[k * 3 + 1] = cellAt(column, besideRow);
    beside[k * 3 + 2] = cellAt(besideColumn, besideRow);
  }
  return beside;
}

/**
 * One V-cycle on `levels[depth]` (its values the current guess, its right-hand side set); returns the
 * largest change it made to a value.
 */
function vCycle(levels: Level[], depth: number): number {
  const level = levels[depth] as Level;
  const coarse = levels[depth + 1];
  if (!coarse) {
    let largest = 0;
    for (let sweep = 0; sweep < COARSEST_SWEEPS; sweep += 1) {
      const change = smooth(level);
      largest = Math.max(largest, change);
      if (change < SETTLED / 10) break;
    }
    return largest;
  }
  let largest = 0;
  for (let sweep = 0; sweep < PRE_SWEEPS; sweep += 1) largest = Math.max(largest, smooth(level));
  restrictResidual(level, coarse);
  coarse.values.fill(0);
  vCycle(levels, depth + 1);
  largest = Math.max(largest, prolong(coarse, level));
  for (let sweep = 0; sweep < POST_SWEEPS; sweep += 1) largest = Math.max(largest, smooth(level));
  return largest;
}

/** A Gauss-Seidel sweep; returns the largest change. A missing neighbour reads the zero slot. */
function smooth(level: Level): number {
  const { count, to, weight, inverse, values, right } = level;
  let largest = 0;
  for (let k = 0; k < count; k += 1) {
    const inv = inverse[k] as number;
    if (inv === 0) continue;
    const a = (to[k * 4] as number) * 3;
    const b = (to[k * 4 + 1] as number) * 3;
    const c = (to[k * 4 + 2] as number) * 3;
    const d = (to[k * 4 + 3] as number) * 3;
    const wa = weight[k * 4] as number;
    const wb = weight[k * 4 + 1] as number;
    const wc = weight[k * 4 + 2] as number;
    const wd = weight[k * 4 + 3] as number;
    for (let channel = 0; channel < 3; channel += 1) {
      const sum =
        (right[k * 3 + channel] as number) +
        wa * (values[a + channel] as number) +
        wb * (values[b + channel] as number) +
        wc * (values[c + channel] as number) +
        wd * (values[d + channel] as number);
      const next = sum * inv;
      const step = next - (values[k * 3 + channel] as number);
      values[k * 3 + channel] = next;
      const size = step < 0 ? -step : step;
      if (size > largest) largest = size;
    }
  }
  return largest;
}

/** The coarse right-hand side: the fine residual summed over each coarse cell. */
function restrictResidual(fine: Level, coarse: Level): void {
  const { count, to, weight, diagonal, values, right, parent } = fine;
  coarse.right.fill(0);
  for (let k = 0; k < count; k += 1) {
    const cell = parent[k] as number;
    if (cell === coarse.count) continue;
    const a = (to[k * 4] as number) * 3;
    const b = (to[k * 4 + 1] as number) * 3;
    const c = (to[k * 4 + 2] as number) * 3;
    const d = (to[k * 4 + 3] as number) * 3;
    const diag = diagonal[k] as number;
    for (let channel = 0; channel < 3; channel += 1) {
      const residual =
        (right[k * 3 + channel] as number) +
        (weight[k * 4] as number) * (values[a + channel] as number) +
        (weight[k * 4 + 1] as number) * (values[b + channel] as number) +
        (weight[k * 4 + 2] as number) * (values[c + channel] as number) +
        (weight[k * 4 + 3] as number) * (values[d + channel] as number) -
        diag * (values[k * 3 + channel] as number);
      coarse.right[cell * 3 + channel] = (coarse.right[cell * 3 + channel] as number) + residual;
    }
  }
}

/**
 * Adds the coarse correction to the fine cells, interpolated bilinearly between the coarse cell under
 * a fine cell and the three nearest beside it (weights 9, 3, 3, 1), over those that hold an equation:
 * a correction that jumps from one 2x2 cell to the next would leave steps the sweeps must take out.
 * Returns the largest change.
 */
function prolong(coarse: Level, fine: Level): number {
  const { values } = coarse;
  const { besideParent, parent } = fine;
  const fineValues = fine.values;
  let largest = 0;
  for (let k = 0; k < fine.count; k += 1) {
    const cell = parent[k] as number;
    if (cell === coarse.count) continue;
    const side = besideParent[k * 3] as number;
    const above = besideParent[k * 3 + 1] as number;
    const corner = besideParent[k * 3 + 2] as number;
    const total = 9 + (side >= 0 ? 3 : 0) + (above >= 0 ? 3 : 0) + (corner >= 0 ? 1 : 0);
    for (let channel = 0; channel < 3; channel += 1) {
      let sum = 9 * (values[cell * 3 + channel] as number);
      if (side >= 0) sum += 3 * (values[side * 3 + channel] as number);
      if (above >= 0) sum += 3 * (values[above * 3 + channel] as number);
      if (corner >= 0) sum += values[corner * 3 + channel] as number;
      const step = sum / total;
      fineValues[k * 3 + channel] = (fineValues[k * 3 + channel] as number) + step;
      const size = step < 0 ? -step : step;
      if (size > largest) largest = size;
    }
  }
  return largest;
}
