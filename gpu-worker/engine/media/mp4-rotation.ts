import { type Box, childBox, versionOf } from "./mp4-boxes";

const FIXED_16_16 = 0x1_0000;
const FIXED_2_30 = 0x4000_0000;

/**
 * Writes a clockwise rotation into the matrix of a track header (tkhd) of `moov`, in place. ffmpeg 5
 * only sets a rotation when it copies a stream, not when it encodes one, so the encoder does it here.
 */
export function setTrackRotation(moov: Buffer, trak: Box, clockwiseDegrees: 0 | 90 | 180 | 270): void {
  const tkhd = childBox(moov, trak, "tkhd");
  // The matrix follows version/flags, times, track id, duration, reserved, layer, group, volume.
  const matrixOffset = tkhd.bodyStart + (versionOf(moov, tkhd) === 1 ? 52 : 40);
  rotationMatrix(clockwiseDegrees).copy(moov, matrixOffset);
}

/** (a, b) is where the x axis goes and (c, d) the y axis, y pointing down: (0, 1) is a clockwise turn. */
function rotationMatrix(clockwiseDegrees: number): Buffer {
  const radians = (clockwiseDegrees * Math.PI) / 180;
  const cos = Math.round(Math.cos(radians)) * FIXED_16_16;
  const sin = Math.round(Math.sin(radians)) * FIXED_16_16;
  const matrix = Buffer.alloc(36);
  [cos, sin, 0, -sin, cos, 0, 0, 0, FIXED_2_30].forEach((value, index) => {
    matrix.writeInt32BE(value, index * 4);
  });
  return matrix;
}
