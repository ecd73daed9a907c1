export { sendRaw, percentEncodeBytes, expectErrorBody, type RawRequest, type RawResponse } from './raw-http.js';
export { openRawStream, type RawStream } from './raw-stream.js';
export {
  routesFromOpenApi,
  fetchDocumentedRoutes,
  PUBLIC_ROUTE_PATHS,
  wrongApiKeyCases,
  rightApiKeyCases,
  routesLettingWrongKeysIn,
  routesRefusingTheRightKey,
  expectGuessThrottle,
  describeApiKeyCases,
  type KeyedService,
  type DocumentedRoute,
  type RouteSender,
} from './api-key-cases.js';
export { documentedErrorCodes, undocumentedErrors, JSON_BODY_ERRORS, type OpenApiResponses } from './documented-errors.js';
export { eventually, drainEventLoop, within, assertNoSlower, Timing, StopWaiting, OutOfTime, type EventuallyOptions } from './wait.js';
export { afterTest } from './after-test.js';
export { ServiceProcess, freePort, type ServiceProcessOptions } from './service-process.js';
export { watchChild, type ExitStatus } from './child-watch.js';
export { anyJsonField, hostileBody, hostileContentType, hostilePathSegment, hostileQuery } from './hostile-input.js';
export { HaDeviceDiscoverySchema, HaComponentSchema, expandDiscoveryPayload, haDiscoveryProblems } from './ha-discovery-schema.js';
export { parseExposition, metricValue, type MetricSample } from './metrics.js';
export { Mosquitto, MqttRecorder, MOSQUITTO, hasMosquittoPasswd, type MosquittoOptions, type SeenMessage } from './mosquitto.js';
export { createTestPki, type TestPki, type IssuedCertificate } from './test-pki.js';
export {
  matrixRoutesOf,
  undeclaredRoutes,
  issueMatrixCallers,
  accessMatrixMismatches,
  type AccessMatrix,
  type MatrixAnswer,
  type MatrixCallers,
  type MatrixRequest,
  type MatrixRoute,
  type Ownership,
  type RouteExpectation,
} from './access-matrix.js';
