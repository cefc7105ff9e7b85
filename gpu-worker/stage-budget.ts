import type { StageBudgets } from "./config";

/** A stage ran past its time budget: the job fails (credits returned) instead of holding its slot. */
export class StageOverrunError extends Error {
  override name = "StageOverrunError";
  readonly code = "processing_timeout";
  constructor(stage: string, budgetMs: number) {
    super(
      `The job's ${stage} step took longer than its ${Math.round(budgetMs / 1000)} s budget. Its credits were returned.`,
    );
  }
}

/** Each stage's budget for a video of this length: a base plus a share per second of video. */
export function stageBudgetMs(budgets: StageBudgets, durationSeconds: number): number {
  return budgets.baseMs + budgets.perVideoSecondMs * Math.max(0, durationSeconds);
}

/**
 * Times each stage of one job: entering a new stage starts its clock, and a stage still running
 * when its budget is spent calls `onOverrun` once with a StageOverrunError.
 */
export class StageClock {
  private stage: string | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly budgetMs: number,
    private readonly onOverrun: (error: StageOverrunError) => void,
  ) {}

  enter(stage: string): void {
    if (stage === this.stage) return;
    this.stage = stage;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.onOverrun(new StageOverrunError(stage, this.budgetMs)), this.budgetMs);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
