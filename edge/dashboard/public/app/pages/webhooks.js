// @ts-check
import { ApiFailure, call } from "../api.js";
import { announce, confirmDialog, dataTable, errorBox, h, repeat, when } from "../dom.js";

const POLL_MS = 2000;

/** @param {string} secret */
function secretOnce(secret) {
  return h(
    "div",
    { class: "secret", role: "alert" },
    h("p", {}, "Signing secret (shown only now; verify each delivery's signature with it):"),
    h("p", {}, h("code", { id: "signing-secret" }, secret)),
  );
}

/**
 * The delivery's state with its reason and, while a retry is scheduled, when it is due:
 * "pending: connection failed; next attempt 20:31:05".
 * @param {{ status: string, last_error: string | null, next_attempt_at: string | null }} delivery
 */
function deliveryText(delivery) {
  const reason = delivery.status !== "delivered" && delivery.last_error ? `: ${delivery.last_error}` : "";
  const next = delivery.next_attempt_at ? `; next attempt ${when(delivery.next_attempt_at)}` : "";
  return `${delivery.status}${reason}${next}`;
}

/** @param {any} event */
function eventRow(event) {
  return h(
    "tr",
    { "data-event": event.id },
    h("th", { scope: "row" }, event.type),
    h("td", { "data-label": "Sent" }, when(event.created_at)),
    h(
      "td",
      { "data-label": "Delivery", class: `delivery delivery-${event.delivery.status}` },
      deliveryText(event.delivery),
    ),
    h("td", { "data-label": "Attempts" }, String(event.delivery.attempts)),
    h("td", { "data-label": "Delivered" }, when(event.delivery.delivered_at)),
  );
}

/**
 * Webhooks: the endpoint, a test event, recent deliveries (refreshed live), secret rotation.
 * @param {HTMLElement} view
 */
export async function renderWebhooks(view) {
  view.append(h("h1", {}, "Webhooks"));
  let state;
  try {
    state = await call("GET", "/webhook");
  } catch (error) {
    if (error instanceof ApiFailure && error.code === "plan_required") {
      // The service's answer names the plan in force and whom to ask for another.
      view.append(
        h(
          "p",
          { id: "plan-notice", class: "notice" },
          `${error.message} `,
          h("a", { href: "#/usage" }, "See your plan"),
        ),
      );
      return;
    }
    throw error;
  }
  const url = h("input", {
    id: "webhook-url",
    type: "url",
    required: true,
    value: state.endpoint.url ?? "",
    placeholder: "https://example.com/hooks/adclean",
  });
  const problems = h("div");
  const secret = h("div", { "aria-live": "polite" });
  const endpointState = h("p", { id: "endpoint-state" });
  const deliveries = h("tbody");

  /** @param {any} endpoint */
  const showEndpoint = (endpoint) => {
    endpointState.textContent = endpoint.url
      ? `Sending to ${endpoint.url}: ${endpoint.enabled ? "on" : `off (${endpoint.disabled_reason ?? "switched off"})`}. Secret ${endpoint.signing_secret_prefix}`
      : "No endpoint yet.";
  };
  /** @param {string} label @param {() => Promise<void>} action */
  const act = (label, action) => {
    const button = h("button", { type: "button" }, label);
    button.addEventListener("click", async () => {
      button.disabled = true;
      problems.replaceChildren();
      try {
        await action();
      } catch (error) {
        problems.replaceChildren(errorBox(error));
      } finally {
        button.disabled = false;
      }
    });
    return button;
  };

  const form = h(
    "form",
    { class: "card" },
    h("p", { class: "field" }, h("label", { for: "webhook-url" }, "Endpoint URL"), url),
    h("button", { type: "submit" }, "Save endpoint"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problems.replaceChildren();
    try {
      const endpoint = await call("PUT", "/webhook", { url: url.value });
      showEndpoint(endpoint);
      secret.replaceChildren(secretOnce(endpoint.signing_secret));
      announce("Endpoint saved.");
    } catch (error) {
      problems.replaceChildren(errorBox(error));
    }
  });
  const sendTest = act("Send a test event", async () => {
    await call("POST", "/webhook/test");
    announce("Test event sent; its delivery shows below.");
  });
  const rotate = act("Rotate signing secret", async () => {
    if (
      !(await confirmDialog("Make a new signing secret? The old one keeps signing for 24 hours.", "Rotate"))
    )
      return;
    const endpoint = await call("POST", "/webhook/rotate");
    showEndpoint(endpoint);
    secret.replaceChildren(secretOnce(endpoint.signing_secret));
  });

  showEndpoint(state.endpoint);
  view.append(
    endpointState,
    problems,
    form,
    secret,
    h("p", { class: "actions" }, sendTest, " ", rotate),
    dataTable(
      {
        caption: "Recent events and their delivery",
        columns: ["Event", "Sent", "Delivery", "Attempts", "Delivered"],
      },
      deliveries,
    ),
  );
  return repeat(POLL_MS, async () => {
    const latest = await call("GET", "/webhook");
    deliveries.replaceChildren(...latest.recent_events.map(eventRow));
  });
}
