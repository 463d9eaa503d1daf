export async function peersBenchmark(_scale: number): Promise<void> {}
