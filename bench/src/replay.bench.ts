export async function replayBenchmark(_scale: number): Promise<void> {}
