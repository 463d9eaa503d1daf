/**
 * How a rebuild tells where it is, on stderr (stdout is the command's answer): a bar
 * redrawn in place on a terminal (events done, rate, time left), a plain line every few
 * seconds otherwise.
 */
export function rebuildProgress(name: string, total: number | null, out: NodeJS.WriteStream = process.stderr): { update(done: number): void; end(): void } {
  const started = Date.now();
  let lastLine = 0;
  const describe = (done: number) => {
    const seconds = Math.max(0.001, (Date.now() - started) / 1000);
    const rate = done / seconds;
    const left = total !== null && rate > 0 ? Math.max(0, (total - done) / rate) : null;
    const counts = total !== null ? `${done.toLocaleString('en')}/${total.toLocaleString('en')} events` : `${done.toLocaleString('en')} events`;
    return { text: `${counts}, ${Math.round(rate).toLocaleString('en')}/s${left !== null ? `, ${Math.ceil(left)} s left` : ''}`, fraction: total ? Math.min(1, done / total) : null };
  };
  return {
    update(done) {
      const { text, fraction } = describe(done);
      if (out.isTTY) {
        const width = 30;
        const filled = fraction === null ? 0 : Math.round(fraction * width);
        const bar = fraction === null ? '' : `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor((fraction ?? 0) * 100)}% `;
        out.write(`\r${name} ${bar}${text}\u001b[K`);
      } else if (Date.now() - lastLine >= 5000) {
        lastLine = Date.now();
        out.write(`rebuild ${name}: ${text}\n`);
      }
    },
    end() {
      if (out.isTTY) out.write('\n');
    },
  };
}
