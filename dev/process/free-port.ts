import net from 'node:net';

/**
 * A TCP port on `host` that nothing listens on right now: the kernel picks one for a
 * throwaway listener, which is closed before the port is handed out. Another process
 * could take it in between; on a benchmark machine that race is rare enough to accept,
 * and the server start fails loudly if it happens.
 */
export function findFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : undefined;
      probe.close(() => (port === undefined ? reject(new Error('The kernel did not report a port.')) : resolve(port)));
    });
  });
}
