export async function httpBenchmark(_scale: number): Promise<void> {}
