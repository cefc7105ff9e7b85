import { createServer } from "node:net";

/** A port on 127.0.0.1 nothing listens on now: the OS picks it, and it is released for the caller. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
