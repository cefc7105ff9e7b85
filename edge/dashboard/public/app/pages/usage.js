// @ts-check
import { call } from "../api.js";
import { h, integer, when } from "../dom.js";
import { PLAN_CHANGE, planNotice } from "../plan.js";

/** "25 November 2026": a billing period runs from a day of one month to the same day of the next. */
const day = (/** @type {string} */ iso) =>
  new Date(iso).toLocaleDateString("en-GB", {
    day: "numeric",
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });

const yesNo = (/** @type {boolean} */ value) => (value ? "yes" : "no");

/** @param {string} title @param {[string, string][]} facts */
function factList(title, facts) {
  return h(
    "section",
    { class: "card" },
    h("h2", {}, title),
    h(
      "dl",
      { class: "facts" },
      ...facts.flatMap(([term, detail]) => [h("dt", {}, term), h("dd", {}, detail)]),
    ),
  );
}

/**
 * Usage: plan, credits (plan and pack), minutes available, this period's jobs, the plan's limits.
 * @param {HTMLElement} view
 */
export async function renderUsage(view) {
  const account = await call("GET", "/account");
  const { credits, limits, usage } = account;
  view.append(
    h("h1", {}, "Usage"),
    planNotice(account) ?? "",
    h(
      "div",
      { class: "cards" },
      factList("Plan", [
        ["Plan", account.plan ? account.plan.name : "No plan"],
        ["Subscription", account.subscription_status.replaceAll("_", " ")],
        ["Period ends", when(account.current_period_end)],
        ["Monthly credits", account.plan ? integer(account.plan.monthly_credits) : "—"],
        ["Changing plan", PLAN_CHANGE],
      ]),
      factList("Credits", [
        ["Plan credits", integer(credits.plan)],
        ["Pack credits", integer(credits.pack)],
        ["Total", integer(credits.total)],
        ["Minutes of video", integer(account.minutes_available)],
      ]),
      factList("This period", [
        ["Period", `${day(usage.period_start)} to ${day(usage.period_end)}`],
        ["Jobs", integer(usage.jobs)],
        ["Credits spent", integer(usage.credits_spent)],
      ]),
      factList("Limits", [
        ["Jobs running at once", integer(limits.concurrent_jobs)],
        ["Unfinished jobs", integer(limits.active_jobs)],
        ["API access", yesNo(limits.api_access)],
        ["Webhooks", yesNo(limits.webhooks)],
        ["Results kept", `${limits.retention_days} days`],
      ]),
    ),
    h(
      "p",
      { class: "help" },
      `${integer(account.pricing.credits_per_minute)} credits per minute of video, at least ${integer(account.pricing.minimum_credits_per_video)} per video.`,
    ),
  );
}
