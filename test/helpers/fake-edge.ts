import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeEdge {
  url: string;
  close(): Promise<void>;
}

/** A stand-in for the edge's internal API on 127.0.0.1: `answer` gets each request's path and whole body. */
export async function startFakeEdge(
  answer: (path: string, body: string, response: ServerResponse) => void,
): Promise<FakeEdge> {
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => answer(request.url ?? "", body, response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
