// A fill worker thread's entry: it loads pool-worker.ts through tsx. Under Node 20 a worker thread
// does not get its parent's `--import tsx` hooks, and under vitest not its transform either.
import { workerData } from "node:worker_threads";
import { tsImport } from "tsx/esm/api";

await tsImport(workerData.entry, import.meta.url);
