import { Hono } from "hono";
import type { AppBindings } from "../env";
import type { AuthContext } from "../middleware/auth";
import { mediaStorage } from "../storage/media-storage";
import { McpHttpTransport } from "./invalid-params";
import { createMcpServer } from "./server";

export const MCP_PATH = "/mcp";

/**
 * Streamable HTTP, stateless: every POST gets a new server and transport, so any Worker instance
 * can answer any call. Without sessions there is no stream to resume, hence 405 for GET and DELETE
 * (the transport spec's answer when a server offers no standalone stream).
 */
export const mcpRoutes = new Hono<AppBindings>()
  .post(MCP_PATH, async (c) => {
    const { workspace, keyId } = c.var.auth as AuthContext;
    const server = createMcpServer({
      env: c.env,
      storage: mediaStorage(c.env, new URL(c.req.url).origin),
      workspace,
      keyId,
      requestId: c.var.requestId,
    });
    const transport = new McpHttpTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw);
  })
  .on(["GET", "DELETE"], MCP_PATH, (c) =>
    c.json(
      {
        jsonrpc: "2.0",
        error: { code: -32000, message: "Method not allowed: send MCP messages with POST." },
        id: null,
      },
      405,
      { Allow: "POST" },
    ),
  );
