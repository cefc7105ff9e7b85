// @ts-check
/** How jobs read on the Jobs pages. */

export const ACTIVE_STATUSES = ["queued", "analyzing", "processing"];
export const STATUSES = [...ACTIVE_STATUSES, "succeeded", "failed", "canceled"];

/** @param {{ status: string }} job */
export const isActive = (job) => ACTIVE_STATUSES.includes(job.status);

/** @param {string | null} stage */
export const stageLabel = (stage) => (stage ? stage.replaceAll("_", " ") : "—");

/** @param {number} progress 0..1 */
export const percent = (progress) => `${Math.round(progress * 100)}%`;
