// @ts-check
import { h } from "./dom.js";

/** Plans are set by the service's operator: the dashboard has no plan control, so it says whom to ask. */
export const PLAN_CHANGE =
  "Plans are changed by the service's operator: ask them to move the workspace to Growth or Scale.";

/**
 * What the workspace's plan allows and, when it lacks API access or webhooks, what that means for
 * keys and webhook secrets; null when the plan has both.
 * @param {any} account the dashboard's /account answer
 */
export function planNotice(account) {
  const { api_access: api, webhooks } = account.limits;
  if (api && webhooks) return null;
  const plan = account.plan ? `the ${account.plan.name} plan` : "no plan";
  const missing = [api ? null : "API access", webhooks ? null : "webhooks"].filter(Boolean).join(" or ");
  const keys = api ? "" : " A key answers only GET /v1/account and GET /v1/estimate.";
  return h(
    "p",
    { id: "plan-notice", class: "notice" },
    `This workspace is on ${plan}: videos are cleaned here in the dashboard, with no ${missing}.${keys} ${PLAN_CHANGE}`,
  );
}
