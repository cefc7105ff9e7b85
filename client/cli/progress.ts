/**
 * One progress display on stderr: a bar redrawn in place on a terminal; elsewhere (logs, pipes) a
 * line per stage and per whole ten percent, so a log gets a few dozen lines, not thousands.
 */
export class ProgressDisplay {
  #lastLine = "";
  #drawn = false;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  update(label: string, fraction: number): void {
    const percent = Math.floor(Math.min(1, Math.max(0, fraction)) * 100);
    if (this.stream.isTTY) {
      const width = 30;
      const filled = Math.round((percent / 100) * width);
      const bar = `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${String(percent).padStart(3)}% ${label}`;
      this.stream.write(`\r${bar.padEnd(this.stream.columns ? Math.min(this.stream.columns - 1, 80) : 80)}`);
      this.#drawn = true;
      return;
    }
    const line = `${label} ${Math.floor(percent / 10) * 10}%`;
    if (line !== this.#lastLine) this.stream.write(`${line}\n`);
    this.#lastLine = line;
  }

  /** A message of its own line, after the bar if one is drawn. */
  note(message: string): void {
    this.end();
    this.stream.write(`${message}\n`);
  }

  /** Ends the bar's line, so what follows starts on a fresh one. */
  end(): void {
    if (this.#drawn) this.stream.write("\n");
    this.#drawn = false;
  }
}
