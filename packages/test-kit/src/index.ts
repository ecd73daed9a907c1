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
  type DocumentedRoute,
  type RouteSender,
} from './api-key-cases.js';
