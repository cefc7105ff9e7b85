import { z } from "@hono/zod-openapi";
import { ApiError } from "../lib/errors";

/** Our decision (an addition to 1.0.0): at most this many areas per job. */
export const MAX_REGIONS = 20;

const fraction = (name: string) =>
  z
    .number()
    .min(0, `${name} is a fraction of the frame, from 0 to 1`)
    .max(1, `${name} is a fraction of the frame, from 0 to 1`);
const seconds = (name: string) => z.number().min(0, `${name} is at least 0`).optional();

/**
 * An area the customer points at: erased whole over its span, without reading (a logo, a sticker, a
 * watermark no text reader finds), together with what the reading (or `texts`) finds.
 */
export const RegionSchema = z
  .object({
    x: fraction("x").openapi({ description: "Left edge, as a fraction of the frame's width" }),
    y: fraction("y").openapi({ description: "Top edge, as a fraction of the frame's height" }),
    width: fraction("width")
      .refine((value) => value > 0, "width must be more than 0")
      .openapi({ description: "Fraction of the frame's width" }),
    height: fraction("height")
      .refine((value) => value > 0, "height must be more than 0")
      .openapi({ description: "Fraction of the frame's height" }),
    start_seconds: seconds("start_seconds").openapi({ description: "From this second; default 0" }),
    end_seconds: seconds("end_seconds").openapi({
      description: "Until this second; default the end of the video",
    }),
  })
  .strict()
  .superRefine((area, ctx) => {
    if (area.x + area.width > 1 + 1e-9) {
      ctx.addIssue({
        code: "custom",
        path: ["width"],
        message: "x + width must stay within the frame (at most 1)",
      });
    }
    if (area.y + area.height > 1 + 1e-9) {
      ctx.addIssue({
        code: "custom",
        path: ["height"],
        message: "y + height must stay within the frame (at most 1)",
      });
    }
    if (
      area.start_seconds !== undefined &&
      area.end_seconds !== undefined &&
      area.end_seconds <= area.start_seconds
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["end_seconds"],
        message: "end_seconds must be after start_seconds",
      });
    }
  })
  .openapi("Region");

export type Region = z.infer<typeof RegionSchema>;

export const RegionsSchema = z
  .array(RegionSchema)
  .max(MAX_REGIONS, `regions has at most ${MAX_REGIONS} areas`)
  .openapi({
    description:
      "Areas to erase whole over their span, without reading, together with what the automatic reading (or `texts`) finds. " +
      "Fractions of the frame; seconds of the video. The price does not change.",
  });

/** Past the video's end: only known once its length is read, before any credit moves. */
export function checkRegionsWithin(regions: Region[] | undefined, durationSeconds: number): void {
  for (const [index, area] of (regions ?? []).entries()) {
    for (const field of ["start_seconds", "end_seconds"] as const) {
      const value = area[field];
      // The start must leave something of the video; the end may be its last instant.
      const past =
        field === "start_seconds"
          ? value !== undefined && value >= durationSeconds
          : (value ?? 0) > durationSeconds + 0.001;
      if (past) {
        throw new ApiError(
          "invalid_parameter",
          `regions.${index}.${field} is past the video's end (${durationSeconds.toFixed(2)} s).`,
          `regions.${index}.${field}`,
        );
      }
    }
  }
}
