import net from 'node:net';

/**
 * How the proxy in front of PostgreSQL behaves: `pass` relays; `refuse` closes its port
 * (ECONNREFUSED); `cut` resets every connection, open or new; `swallow` is a black hole:
 * it takes connections and bytes and answers nothing, as a frozen server does, and
 * delivers what it held once it passes again; `slow` relays every chunk `slowMs` late, as a
 * server far away or overloaded does: it answers everything, slowly.
 */
export type FaultMode = 'pass' | 'refuse' | 'cut' | 'swallow' | 'slow';

/** How late `slow` relays each chunk. */
const slowMs = 40;

type Pair = { readonly client: net.Socket; readonly upstream: net.Socket; readonly held: [net.Socket, Buffer][] };

export type FaultProxy = {
  /** The proxy's URL for the given database URL. */
  readonly url: string;
  set(mode: FaultMode): Promise<void>;
  close(): Promise<void>;
};

export async function startFaultProxy(databaseUrl: string): Promise<FaultProxy> {
  const target = new URL(databaseUrl);
  const pairs = new Set<Pair>();
  let mode: FaultMode = 'pass';
  let port = 0;

  const relay = (pair: Pair, from: net.Socket, to: net.Socket) => {
    // One queue per direction: a chunk never overtakes one still delayed, whatever the mode is by then.
    let queue = Promise.resolve();
    from.on('data', (chunk: Buffer) => {
      if (mode === 'swallow') {
        pair.held.push([to, chunk]);
        return;
      }
      const due = mode === 'slow' ? Date.now() + slowMs : 0;
      queue = queue
        .then(() => (due > Date.now() ? new Promise<void>((resolve) => setTimeout(resolve, due - Date.now())) : undefined))
        .then(() => {
          to.write(chunk);
        });
    });
  };
  const server = net.createServer((client) => {
    if (mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    const pair: Pair = { client, upstream, held: [] };
    pairs.add(pair);
    for (const s of [client, upstream]) {
      s.on('error', () => undefined);
      s.on('close', () => {
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      });
    }
    relay(pair, client, upstream);
    relay(pair, upstream, client);
  });
  const listenOn = (at: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(at, '127.0.0.1', () => {
        server.off('error', reject);
        port = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  // The port is closed and opened again (`refuse`): one the system hands out for outgoing
  // connections could be taken meanwhile by another test's (EADDRINUSE on reopening). A port
  // below that range (Linux: 32768 and up) is taken only by a listener that asks for it.
  const listen = async () => {
    if (port !== 0) return listenOn(port);
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await listenOn(20_000 + Math.floor(Math.random() * 12_000));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 50) throw error;
      }
    }
  };
  const stopListening = () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  const resetAll = () => {
    for (const pair of pairs) {
      pair.client.resetAndDestroy();
      pair.upstream.destroy();
    }
  };
  await listen();
  const proxied = new URL(databaseUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);

  return {
    url: proxied.toString(),
    async set(next) {
      mode = next;
      if (next === 'refuse') {
        // Closing the port refuses new connections; the open ones are cut as a stopped server's are.
        const closing = stopListening();
        resetAll();
        await closing;
        return;
      }
      if (!server.listening) await listen();
      if (next === 'cut') resetAll();
      if (next === 'pass') {
        for (const pair of pairs) for (const [to, chunk] of pair.held.splice(0)) to.write(chunk);
      }
    },
    async close() {
      mode = 'cut';
      resetAll();
      await stopListening();
    },
  };
}
