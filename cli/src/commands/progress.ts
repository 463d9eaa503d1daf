/**
 * How long work tells where it is (issue 26): on stderr, and only when stderr is a terminal,
 * so that stdout stays the command's one JSON object (DECISIONS §7) and a script or a log
 * file sees nothing extra. `projections rebuild` has its own (rebuild-progress.ts), which
 * also prints a plain line every few seconds off a terminal.
 */
export type Progress = { update(done: number): void; end(): void };

const count = (n: number) => Math.round(n).toLocaleString('en');

/** `1,200/5,000 events, 3,400/s` (no total: `1,200 events, 3,400/s`). */
export function progressText(done: number, total: number | null, unit: string, seconds: number): string {
  const rate = done / Math.max(0.001, seconds);
  const counts = total !== null ? `${count(done)}/${count(total)} ${unit}` : `${count(done)} ${unit}`;
  return `${counts}, ${count(rate)}/s`;
}

/** A line redrawn in place (`label 25% 1,200/5,000 events, 3,400/s`), at most ten times a second; nothing off a terminal. */
export function terminalProgress(label: string, total: number | null, unit: string, out: NodeJS.WriteStream = process.stderr): Progress {
  const started = Date.now();
  let drawn = 0;
  let shown = false;
  const draw = (done: number) => {
    const percent = total ? `${Math.floor(Math.min(1, done / total) * 100)}% ` : '';
    out.write(`\r${label} ${percent}${progressText(done, total, unit, (Date.now() - started) / 1000)}\u001b[K`);
    shown = true;
  };
  return {
    update(done) {
      if (!out.isTTY) return;
      const now = Date.now();
      if (shown && now - drawn < 100 && done !== total) return;
      drawn = now;
      draw(done);
    },
    /** Leaves the last line drawn on the terminal; again, does nothing. */
    end() {
      if (out.isTTY && shown) out.write('\n');
      shown = false;
    },
  };
}

/** A status line on a terminal: each `line` replaces the one before; `done` clears it. Nothing off a terminal. */
export function statusLine(out: NodeJS.WriteStream = process.stderr): { show(line: string): void; print(line: string): void; done(): void } {
  return {
    show(line) {
      if (out.isTTY) out.write(`\r${line}\u001b[K`);
    },
    /** A line that stays (replacing the status line). */
    print(line) {
      if (out.isTTY) out.write(`\r${line}\u001b[K\n`);
    },
    done() {
      if (out.isTTY) out.write('\r\u001b[K');
    },
  };
}
