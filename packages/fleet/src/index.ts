export { Fleet, type FleetRunOptions } from "./coordinator.js";
export { startFleetWorker, type FleetWorker, type FleetWorkerOptions } from "./worker.js";
export { FleetCodes, FleetError, parseQueueUrl, type QueueAddress } from "./url.js";
export { checkReachable } from "./connect.js";
export { RedisRateLimiter } from "./rate.js";
