import type { D1Migration } from "cloudflare:test";
import type { Env as EdgeEnv } from "../../edge/env";

declare global {
  namespace Cloudflare {
    interface Env extends EdgeEnv {
      TEST_MIGRATIONS: D1Migration[];
    }
  }
}
