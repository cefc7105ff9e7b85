import { createServer } from "node:http";
import { loadConfig } from "./config";

/** The GPU worker process: for now its HTTP server with /health (job intake comes with the worker issue). */
const config = loadConfig();

const server = createServer((request, response) => {
  if (request.method === "GET" && request.url === "/health") {
    response.writeHead(200, { "Content-Type": "application/json" });
    response.end(JSON.stringify({ status: "ok", slots: config.slots, busy: 0 }));
    return;
  }
  response.writeHead(404, { "Content-Type": "application/json" });
  response.end(JSON.stringify({ error: "not found" }));
});

server.listen(config.port, config.host, () => {
  console.log(`gpu-worker listening on http://${config.host}:${config.port}`);
});

const shutdown = () => server.close(() => process.exit(0));
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
