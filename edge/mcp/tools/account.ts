import { z } from "zod";
import { accountView } from "../../routes/account";
import { estimateCredits } from "../../services/estimate";
import { workspaceObject } from "../../workspace/stub";
import { defineTool } from "../tool";

export const getAccountTool = defineTool({
  name: "get_account",
  endpoint: "GET /v1/account",
  description:
    "Show the workspace behind the API key: its plan, credits left (plan and pack), the minutes of video they pay for, " +
    "its limits (concurrent and active jobs, API access) and the price. Call it before creating jobs to check the credits.",
  input: z.strictObject({}),
  openToAllPlans: true,
  async run(_args, call) {
    const balances = await workspaceObject(call.env, call.workspace.id).balances();
    const account = accountView(call.workspace, balances);
    const plan = account.plan ? `plan ${account.plan.name}` : "no plan";
    return {
      summary:
        `Workspace ${account.workspace.name} (${account.workspace.id}), ${plan}: ${account.credits.total} credits ` +
        `(${account.minutes_available} minutes of video). API access: ${account.limits.api_access ? "yes" : "no"}.`,
      value: account,
    };
  },
});

export const estimateCreditsTool = defineTool({
  name: "estimate_credits",
  endpoint: "GET /v1/estimate",
  description:
    "Say how many credits a video of the given duration costs, without creating anything. Price: 150 credits a minute, " +
    "billed per started second, at least 25 credits a video.",
  input: z.strictObject({
    duration_seconds: z
      .number()
      .positive()
      .describe("Length of the video in seconds, greater than 0, e.g. 61.2"),
  }),
  openToAllPlans: true,
  async run({ duration_seconds }, call) {
    const estimate = await estimateCredits(call.env, duration_seconds);
    const price = `A ${duration_seconds} s video (billed as ${estimate.label}) costs ${estimate.credits} credits.`;
    return {
      summary: estimate.too_long
        ? `A ${duration_seconds} s video is over the ${estimate.max_duration_seconds / 60}-minute limit: a job for it ` +
          "would be refused with video_too_long. Cut it shorter first."
        : price,
      value: estimate,
    };
  },
});
