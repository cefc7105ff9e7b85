/** The published rate (spec: 150 credits per minute of video, billed per started second). */
export const CREDITS_PER_MINUTE = 150;
/** The smallest charge for one video: 10 seconds' worth. */
export const MINIMUM_CREDITS_PER_VIDEO = 25;

export function billedSeconds(durationSeconds: number): number {
  return Math.ceil(durationSeconds);
}

/** Credits for a video: started seconds at the per-minute rate, fractions rounded up, never below the minimum. */
export function creditsForDuration(durationSeconds: number): number {
  const exact = Math.ceil((billedSeconds(durationSeconds) * CREDITS_PER_MINUTE) / 60);
  return Math.max(exact, MINIMUM_CREDITS_PER_VIDEO);
}

/** "45 s", "1 min", "1 min 2 s" for the billed (whole) seconds of a duration. */
export function durationLabel(durationSeconds: number): string {
  const seconds = billedSeconds(durationSeconds);
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  if (minutes === 0) return `${rest} s`;
  return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
}

/** Minutes of video the credits pay for, rounded down to a hundredth so it never overstates. */
export function minutesForCredits(credits: number): number {
  return Math.floor((credits / CREDITS_PER_MINUTE) * 100) / 100;
}
