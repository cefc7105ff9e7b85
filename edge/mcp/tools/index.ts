import type { McpTool } from "../tool";
import { estimateCreditsTool, getAccountTool } from "./account";
import { cancelJobTool, createJobTool, getJobTool, listJobsTool } from "./jobs";
import { createUploadTool } from "./uploads";
import { waitForJobTool } from "./wait";

/** Every tool of the MCP server, in the order a client lists them. */
export const TOOLS: readonly McpTool[] = [
  getAccountTool,
  estimateCreditsTool,
  createUploadTool,
  createJobTool,
  getJobTool,
  listJobsTool,
  cancelJobTool,
  waitForJobTool,
];
