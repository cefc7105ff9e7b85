/** Names for the generated OpenAPI types (client/openapi.d.ts), as the client's methods use them. */
import type { components, paths } from "./openapi";

type Schemas = components["schemas"];

export type Account = Schemas["Account"];
export type Estimate = Schemas["Estimate"];
export type UploadCreate = Schemas["UploadCreate"];
export type Upload = Schemas["Upload"];
export type JobCreate = Schemas["JobCreate"];
export type Job = Schemas["Job"];
export type Region = Schemas["Region"];
export type JobReport = Schemas["JobReport"];
export type JobList = Schemas["JobList"];
export type JobListQuery = NonNullable<paths["/v1/jobs"]["get"]["parameters"]["query"]>;
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type WebhookEndpointWithSecret = Schemas["WebhookEndpointWithSecret"];
export type WebhookEndpointUpdate = Schemas["WebhookEndpointUpdate"];
export type RotateSecret = Schemas["RotateSecret"];
export type WebhookEvent = Schemas["WebhookEvent"];
export type EventWithDelivery = Schemas["EventWithDelivery"];
export type EventList = Schemas["EventList"];
export type EventListQuery = NonNullable<paths["/v1/events"]["get"]["parameters"]["query"]>;
export type WebhookAttemptList = Schemas["WebhookAttemptList"];
