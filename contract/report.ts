import { z } from "@hono/zod-openapi";

/** The most entries of each list a report keeps (a long video with many lines keeps its first ones). */
export const MAX_REPORT_ENTRIES = 200;

const share = z.number().min(0).max(1);
const seconds = z.number().min(0);

/** Where a line was, as fractions of the frame: the box around every place it was read. */
const BoxSchema = z
  .object({ x: share, y: share, width: share, height: share })
  .openapi("ReportBox", { description: "Fractions of the frame" });

const LineSchema = z.object({
  text: z
    .string()
    .max(500)
    .openapi({ description: "As read; empty when the reader found a line but could not read it" }),
  start_seconds: seconds.openapi({ description: "When it first shows" }),
  end_seconds: seconds.openapi({ description: "When it is gone" }),
  box: BoxSchema,
});

const list = <T extends z.ZodType>(item: T) => z.array(item).max(MAX_REPORT_ENTRIES);

/** What the engine did to one video: sent by the worker with its completion, stored with the job. */
export const CleanReportSchema = z.object({
  lines_erased: list(LineSchema).openapi({ description: "The lines erased" }),
  areas_erased: list(
    z.object({
      x: share,
      y: share,
      width: share,
      height: share,
      start_seconds: seconds,
      end_seconds: seconds,
    }),
  ).openapi({ description: "The job's `regions`, erased whole over these spans" }),
  lines_kept: list(
    LineSchema.extend({
      reason: z.enum(["scene", "not_in_texts"]).openapi({
        description:
          "`scene`: it moves with the filmed scene (a sign, a label), so it is part of the picture; " +
          "`not_in_texts`: the job gave `texts` and this line matches none of them",
      }),
    }),
  ).openapi({ description: "Lines read and left in the video on purpose, and why" }),
  lines_still_found: list(z.object({ at_seconds: seconds, box: BoxSchema })).openapi({
    description:
      "Text the verify stage still found where text was erased (it reads every eighth cleaned frame again, after one wider second try)",
  }),
  frames_changed_share: share.openapi({ description: "Share of the video's frames with any pixel erased" }),
});

export type CleanReport = z.infer<typeof CleanReportSchema>;

/** The report as the API shows it: with the before/after picture's address. */
export const JobReportSchema = CleanReportSchema.extend({
  picture: z
    .object({
      url: z.url().openapi({ description: "Presigned address of a JPEG, valid one hour from this answer" }),
      expires_at: z.iso.datetime(),
    })
    .nullable()
    .openapi({
      description:
        "The frame with the most erased text, before (left) and after (right), side by side. Null when nothing was erased, " +
        "and once the result is deleted at the end of the retention period",
    }),
}).openapi("JobReport", {
  description:
    "What was erased, what was kept and why, and what may be left. Set on succeeded jobs only (absent on other jobs and on jobs finished before reports existed)",
});

export type JobReport = z.infer<typeof JobReportSchema>;
