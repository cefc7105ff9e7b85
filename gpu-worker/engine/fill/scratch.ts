/**
 * Float planes reused from one frame's fill to the next. A crop's worth is megabytes: allocated
 * afresh for every frame, it costs page faults and collections (about 3 ms a frame at 720p for the
 * seam blend alone). A plane is valid until its slot is taken again, so only code that does not
 * await while holding one may use it.
 */
const planes = new Map<string, Float32Array>();

/** A plane of `length` floats for `slot`: every one set to `value`, or as last left without one. */
export function scratchPlane(slot: string, length: number, value?: number): Float32Array {
  let plane = planes.get(slot);
  if (!plane || plane.length < length) {
    plane = new Float32Array(length);
    planes.set(slot, plane);
  }
  const taken = plane.subarray(0, length);
  return value === undefined ? taken : taken.fill(value);
}
