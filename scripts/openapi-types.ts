/** `npm run client:types`: writes client/openapi.d.ts from the edge app's OpenAPI document. */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { PROJECT_ROOT } from "./lib/dev-config";
import { CLIENT_TYPES_PATH, generateClientTypes } from "./lib/openapi-types";

writeFileSync(path.join(PROJECT_ROOT, CLIENT_TYPES_PATH), await generateClientTypes());
console.log(`wrote ${CLIENT_TYPES_PATH}`);
